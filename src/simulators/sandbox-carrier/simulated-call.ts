import { randomBytes } from 'node:crypto';
import type { CallRequest } from '../../providers/telephony/types.ts';
import type { CalleeKind } from './callees.ts';

/** What the carrier saw of one call: for tests, and for the dial bench's answer-to-first-audio figure. */
export interface SimulatedCall {
  sid: string;
  /** `outbound-api`: Parley dialled it; `inbound`: a caller rang one of Parley's numbers. */
  direction: 'outbound-api' | 'inbound';
  request: CallRequest;
  callee: CalleeKind;
  status: string;
  startedAt: number;
  answeredAt?: number;
  /** When the callee first heard sound from Parley (ms since the epoch). */
  firstSoundAt?: number;
  endedAt?: number;
  /** What the carrier charges for the call (rates.ts), once it has ended. */
  priceMicros?: number;
  /** A voicemail box: how much of Parley it heard over its greeting, and how much it recorded after its beep (ms of sound). */
  voicemail?: { heardOverGreetingMs: number; recordedMs: number };
  /** Where Parley transferred the call, and what became of it. */
  transfer?: SimulatedTransfer;
  /** The answering-machine detection's verdict, when it was asked for (ReportedAs). */
  answeredBy?: string;
  /** Where Parley warm-transferred the call (to a supervisor), and what each side heard. */
  warmTransfer?: SimulatedWarmTransfer;
}

/** A call handed over to a number: the callee its last two digits choose, as for a dialled call. */
export interface SimulatedTransfer {
  to: string;
  callee: CalleeKind;
  /** `ringing`, then the outcome as `<Dial>` reports it: completed, busy, no-answer, failed, canceled. */
  status: string;
  answeredAt?: number;
  /** What the person answering heard before the caller was connected (a warm transfer). */
  whisper?: string;
  endedAt?: number;
}

/** A call held for a supervisor (a warm transfer), and what each side heard. */
export interface SimulatedWarmTransfer {
  /** The supervisor, the callee its last two digits choose, and the carrier's id of their call. */
  to: string;
  callee: CalleeKind;
  supervisorSid: string;
  room: string;
  /** The supervisor's call: `ringing`, `in-progress`, then completed, busy, no-answer, failed or canceled. */
  status: string;
  /** The loudest sample (0-1) of the hold music the caller heard while waiting; 0: silence. */
  holdMusicPeak: number;
  /** What the supervisor heard on answering, before joining. */
  briefing?: string;
  /** What the caller heard when taken off hold: the connected message, or an apology before the call ended. */
  callerHeard?: string;
  answeredAt?: number;
  /** When the caller joined the supervisor in the room. */
  bridgedAt?: number;
  endedAt?: number;
}

/** A call's sid, as Twilio shapes them. */
export function newCallSid(): string {
  return `CA${randomBytes(16).toString('hex')}`;
}
