/**
 * How a call session reports to its caller (the media role): plain callbacks with plain data. The voice
 * engine has no database; the caller stores turns, signals the call's workflow, and so on.
 */

/**
 * Why a call ended; `hangup_requested` is an end asked for from outside (the call's workflow, on a DELETE or an
 * operator's request), `transferred` a call the carrier handed over to a number.
 */
export const END_REASONS = ['customer_hangup', 'assistant_end_call', 'max_duration', 'silence_timeout', 'balance_exhausted', 'hangup_requested', 'transferred', 'error'] as const;
export type EndReason = (typeof END_REASONS)[number];

/** Per-turn latencies in milliseconds, measured for the assistant's replies to the caller (none on the caller's turns). */
export interface TurnMetrics {
  /** End of the caller's speech → the reply's first audio sent: the latency the caller feels. */
  latencyMs?: number;
  /** End of the caller's speech → the recognizer's last words of the turn answered. */
  sttDelayMs?: number;
  /** The model request → its first token. */
  llmFirstTokenMs?: number;
  /** The first synthesis request → its first audio. */
  ttsFirstByteMs?: number;
  interrupted: boolean;
}

/** One committed turn; times are milliseconds since the call was answered. */
export interface CallTurn {
  /** `handover`: another assistant took the call over (`assistant_transfer`); its name is the text. */
  role: 'assistant' | 'user' | 'handover';
  /** For the assistant, only what the caller heard. */
  text: string;
  startedAt: number;
  endedAt: number;
  interrupted: boolean;
  metrics: TurnMetrics;
}

export interface CallHooks {
  /** The stream started and the session is set up: the call is in progress. */
  onAnswered?(): void;
  onTurn?(turn: CallTurn): void;
  /** Called once, when the session has ended and its socket is closed or closing. */
  onEnded?(reason: EndReason): void;
}
