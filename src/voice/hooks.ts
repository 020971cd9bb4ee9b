/**
 * How a call session reports to its caller (the media role): plain callbacks with plain data. The voice
 * engine has no database; the caller stores turns, signals the call's workflow, and so on.
 */
import type { Verdict } from './voicemail/judge.ts';

/**
 * Why a call ended; `hangup_requested` is an end asked for from outside (the call's workflow, on a DELETE or an
 * operator's request); `voicemail`: a machine answered, and the assistant hung up (after its message, if it left
 * one); `transferred`: the carrier handed the call over to a number.
 */
export const END_REASONS = ['customer_hangup', 'assistant_end_call', 'max_duration', 'silence_timeout', 'balance_exhausted', 'hangup_requested', 'voicemail', 'transferred', 'error'] as const;
export type EndReason = (typeof END_REASONS)[number];

/**
 * Per-turn figures of the assistant's replies to the caller: latencies in whole milliseconds, the turn model's
 * score and the drafts; none on the caller's turns, and only those that could be measured (a greeting has no
 * caller speech before it).
 */
export interface TurnMetrics {
  /** End of the caller's speech → the reply's first audio sent: the latency the caller feels. */
  end_of_speech_to_first_audio_ms?: number;
  /** End of the caller's speech → the turn committed: the silence the turn policy waited. */
  end_of_turn_decision_ms?: number;
  /** End of the caller's speech → the recognizer's final words of the turn. */
  stt_final_delay_ms?: number;
  /** The model request → its first token. */
  llm_first_token_ms?: number;
  /** The first synthesis request → its first audio. */
  tts_first_byte_ms?: number;
  /** The turn model's score (0..1, three decimals) of the caller's voice at the pause that ended the turn. */
  turn_model_score?: number;
  /** 1 when the reply was drafted while the caller paused and kept when the turn was committed, else 0. */
  preemptive?: number;
  /** Drafts of the reply discarded during the caller's turn (they went on speaking, or their words changed). */
  preemptive_discarded?: number;
}

/**
 * One committed turn, exactly as the engine reports it, the call's row stores it (`calls.turns`) and
 * `GET /user/calls/{id}` shows it: snake_case like the rest of the call resource, each instant both as a
 * wall-clock time and as an offset from the answer (voice/turn-record.ts writes it).
 */
export interface CallTurn {
  /** `handover`: another assistant took the call over (`assistant_transfer`); its name is the text. */
  role: 'assistant' | 'user' | 'handover';
  /** For the assistant, only what the caller heard. */
  text: string;
  /** ISO 8601, UTC, to the millisecond. */
  started_at: string;
  ended_at: string;
  /** Milliseconds from the call's answer to `started_at` and to `ended_at`. */
  start_offset_ms: number;
  end_offset_ms: number;
  /** The caller cut the assistant off; always false on the caller's turns. */
  interrupted: boolean;
  metrics: TurnMetrics;
}

export interface CallHooks {
  /** The stream started and the session is set up: the call is in progress since `at`, the time its turns count from. */
  onAnswered?(at: Date): void;
  onTurn?(turn: CallTurn): void;
  /** An outbound phone call's verdict on who answered (voicemail/judge.ts), once. */
  onAnsweredBy?(verdict: Verdict): void;
  /**
   * Called once, when the session has ended and its socket is closed or closing. `at`: when the call ended,
   * which is when the line did (the caller's last words may be stored a moment later).
   */
  onEnded?(reason: EndReason, at: Date): void;
}
