import { pause } from '../../lib/abort.ts';
import type { Line } from './line.ts';

/**
 * Who answers a number the sandbox carrier dials: a person at a softphone page that claimed the number, or else
 * a scripted callee chosen by its last two digits the way Stripe's test cards choose a payment's outcome (the
 * README has the table).
 */
export type CalleeKind = ScriptedCallee | 'softphone';
export type ScriptedCallee = 'person' | 'busy' | 'no-answer' | 'voicemail' | 'failed' | 'silent-hang-up';

/** The scripted callee of a number. Pure, so tests and docs agree on it. */
export function calleeFor(phoneNumber: string): ScriptedCallee {
  const lastTwo = Number(phoneNumber.replace(/\D/g, '').slice(-2));
  if (lastTwo <= 79) return 'person';
  if (lastTwo <= 84) return 'busy';
  if (lastTwo <= 89) return 'no-answer';
  if (lastTwo <= 94) return 'voicemail';
  if (lastTwo <= 97) return 'failed';
  return 'silent-hang-up';
}

/** What a person callee says, a line per assistant turn, unless a script was registered for the number. */
export const DEFAULT_SCRIPT = [
  'Hi, this is Sam speaking.',
  'Yes, that sounds good. Thank you, goodbye.',
];

export const VOICEMAIL_GREETING = 'Hi, you have reached Sam. I cannot take your call right now. Please leave a message after the tone.';

/** The sandbox carrier's timings, as a phone network shows them. */
export const timings = {
  /** From the dial to the first ring. */
  ringAfterMs: 200,
  /** A person or a machine picks up after ringing this long. */
  answerAfterMs: 1000,
  /** A busy line is reported this long after the ringing starts; a failed call sooner. */
  busyAfterMs: 1000,
  failAfterMs: 500,
  /** The callee that answers without a word hangs up after this. */
  silentHangUpAfterMs: 2000,
  /** The far end has finished a turn once its audio has been quiet this long. */
  turnQuietMs: 800,
  /** A person waits this long for the assistant to speak before saying their next line anyway. */
  turnWaitMs: 8000,
  /** A person hangs up this long after the assistant's reply to their last line, and never stays longer than the cap. */
  goodbyeHangUpMs: 2000,
  personCapMs: 60_000,
  /** A voicemail box records at most this long after its beep. */
  voicemailRecordMs: 30_000,
  /** The person a call is transferred to talks with the caller this long, then hangs up. */
  bridgedTalkMs: 2000,
};

export type CalleeTimings = typeof timings;

/**
 * The timings at a pace: `phone` as above; `instant` (SANDBOX_CARRIER_PACE, for benches) picks up, reports busy
 * or fails at the dial, and the silent callee hangs up a second after answering, so a call is mostly Parley's
 * own work. Conversations (turns, voicemail, transfers) keep their pace: they are speech, not ringing.
 * `silentSeconds` (SANDBOX_SILENT_CALLEE_SECONDS) holds the silent callee's line that long instead, as a call of
 * some length would: a bench's slots then stay taken as real calls take them.
 */
export function timingsAt(pace: 'phone' | 'instant', silentSeconds?: number): CalleeTimings {
  const paced = pace === 'phone' ? timings : { ...timings, ringAfterMs: 0, answerAfterMs: 0, busyAfterMs: 0, failAfterMs: 0, silentHangUpAfterMs: 1000 };
  return silentSeconds === undefined ? paced : { ...paced, silentHangUpAfterMs: silentSeconds * 1000 };
}

/**
 * Waits for the far end of `line` to finish a turn: sound after now, then `quietMs` of quiet; gives up after
 * `waitMs` without sound, or when the call ends.
 */
export async function farEndTurn(line: Line, signal: AbortSignal, waitMs: number, quietMs = timings.turnQuietMs): Promise<void> {
  const since = Date.now();
  while (!signal.aborted) {
    const now = Date.now();
    const spoke = line.lastSoundAt !== undefined && line.lastSoundAt > since;
    if (spoke && now - (line.lastSoundAt ?? now) >= quietMs) return;
    if (!spoke && now - since >= waitMs) return;
    await pause(50, signal);
  }
}
