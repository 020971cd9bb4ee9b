/** What a call's lifecycle workflow shares with its starters, its signallers and its activities. A leaf module. */
import type { DeliveryPolicy } from '../../webhooks/policy.ts';

/** The signals a call's lifecycle workflow takes, by name: the media gateway's and the API's. */
export const callSignals = {
  /** The media session connected, or the callee answered: `CallAnsweredSignal`. */
  callAnswered: 'callAnswered',
  /** The media session ended: `CallEndedSignal`. */
  callEnded: 'callEnded',
  /** Someone asks for the call to end (the call is deleted while live, an operator): `EndCallSignal`. */
  endCall: 'endCall',
  /** The carrier's word on a phone call (its status callbacks): `CarrierStatusSignal`. */
  carrierStatus: 'carrierStatus',
  /** Who answered an outbound phone call, as the voice engine or the carrier judged it: `AnsweredBySignal`. */
  answeredBy: 'answeredBy',
} as const;

/** A phone call's status as carriers report it (Twilio's `CallStatus` values; the sandbox carrier's too). */
export type CarrierCallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

/** The carrier's statuses after which a call is over at the carrier. */
export const finalCarrierStatuses: readonly CarrierCallStatus[] = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

export interface CarrierStatusSignal {
  status: CarrierCallStatus;
  /** ISO 8601: when the carrier saw it. */
  at: string;
}

/**
 * A verdict on who answered (the contract's `answered_by`): from the voice engine's own detector (`engine`), or
 * from the carrier's answering-machine detection (`carrier`, Twilio's AnsweredBy), which is preferred when it
 * is sure.
 */
export interface AnsweredBySignal {
  answeredBy: 'human' | 'machine' | 'unknown';
  source: 'engine' | 'carrier';
  /** ISO 8601. */
  at: string;
}

export interface CallAnsweredSignal {
  /** ISO 8601. */
  at: string;
}

/**
 * Why the media session ended, in the engine's words: `customer_hangup`, `assistant_end_call`, `max_duration`,
 * `silence_timeout`, `balance_exhausted`, `voicemail`, `error`, `media_lost`.
 */
export interface CallEndedSignal {
  reason: string;
  /** ISO 8601. */
  at: string;
}

export interface EndCallSignal {
  reason: string;
}

/**
 * A call's lifecycle takes the call's id and nothing else the call holds (the rest is read by its activities).
 * `timing` shortens the waits for tests; production starts never set it.
 */
export interface CallLifecycleInput {
  callId: number;
  timing?: Partial<CallLifecycleTiming>;
  /** A campaign's call: the campaign's workflow (`campaign-<id>`, whichever run is current) is told when it ended and finished. */
  campaignId?: number;
  /** Handed to the post-call webhook's delivery, to shorten its waits in tests. */
  webhookPolicy?: Partial<DeliveryPolicy>;
}

export interface CallLifecycleTiming {
  /** How long a created call may take to connect (a web call: the browser opens its media socket). */
  connectTimeoutSeconds: number;
  /** How long a dialled phone call may ring before it is given up as `no-answer`. */
  ringTimeoutSeconds: number;
  /** How long past the call's time limit the media session gets to report its end before it is hung up. */
  graceSeconds: number;
  /** How long a hung-up session gets to report its end before the call is ended without it. */
  hangupWaitSeconds: number;
}

export interface CallLifecycleResult {
  /** The call's final status (the contract's), or `deleted` when the call's record went away mid-call. */
  status: string;
  reason: string;
}

/** What `callPhaseQuery` answers: where the call's lifecycle is. */
export type CallPhase = 'preparing' | 'dialing' | 'connecting' | 'in-progress' | 'ending' | 'finalizing' | 'evaluating' | 'done';
