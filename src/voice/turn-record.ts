/**
 * The one writer of a committed turn's record (hooks.ts `CallTurn`): sessions measure on the voice clock,
 * which is monotonic and has no date, so each turn is placed against the moment the call was answered, read
 * on both clocks at once.
 */
import type { CallTurn, TurnMetrics } from './hooks.ts';
import type { UserTurn } from './listening/listener.ts';
import type { ReplyOutcome } from './reply.ts';
import type { SpeechTimings } from './speaker.ts';

/** When the call was answered: on the voice clock, and as a date. */
export interface AnswerTime {
  clockMs: number;
  at: Date;
}

/** A turn as a session measured it: its span on the voice clock, its latencies in (fractional) milliseconds. */
export interface MeasuredTurn {
  role: CallTurn['role'];
  text: string;
  startedAt: number;
  endedAt: number;
  interrupted: boolean;
  metrics: TurnMetrics;
}

export function callTurn(answer: AnswerTime, turn: MeasuredTurn): CallTurn {
  const startOffset = Math.round(turn.startedAt - answer.clockMs);
  const endOffset = Math.round(turn.endedAt - answer.clockMs);
  const dated = (offsetMs: number) => new Date(answer.at.getTime() + offsetMs).toISOString();
  const metrics: TurnMetrics = {};
  for (const [name, value] of Object.entries(turn.metrics) as [keyof TurnMetrics, number | undefined][]) {
    // A score is a fraction; everything else is whole milliseconds or a count.
    if (value !== undefined) metrics[name] = name === 'turn_model_score' ? Math.round(value * 1000) / 1000 : Math.round(value);
  }
  return {
    role: turn.role,
    text: turn.text,
    started_at: dated(startOffset),
    ended_at: dated(endOffset),
    start_offset_ms: startOffset,
    end_offset_ms: endOffset,
    interrupted: turn.interrupted,
    metrics,
  };
}

/**
 * The metrics of a reply: from the caller's turn it answers (none for a greeting or a re-engagement), the
 * model's outcome and the speech's timings, and whether it was drafted at the caller's pause and kept.
 */
export function replyMetrics(timings: SpeechTimings, outcome: ReplyOutcome | undefined, turn: (UserTurn & { preemptive: boolean; discarded: number }) | undefined): TurnMetrics {
  return {
    ...(turn && timings.firstFrameSentAt !== undefined ? { end_of_speech_to_first_audio_ms: timings.firstFrameSentAt - turn.speechEndedAt } : {}),
    ...(turn ? { end_of_turn_decision_ms: turn.committedAt - turn.speechEndedAt, stt_final_delay_ms: turn.transcribedAt - turn.speechEndedAt } : {}),
    ...(outcome?.firstTokenAt !== undefined && outcome.llmRequestedAt !== undefined ? { llm_first_token_ms: outcome.firstTokenAt - outcome.llmRequestedAt } : {}),
    ...(timings.ttsFirstChunkAt !== undefined && timings.ttsRequestedAt !== undefined ? { tts_first_byte_ms: timings.ttsFirstChunkAt - timings.ttsRequestedAt } : {}),
    ...(turn?.score !== undefined ? { turn_model_score: turn.score } : {}),
    ...(turn ? { preemptive: turn.preemptive ? 1 : 0, preemptive_discarded: turn.discarded } : {}),
  };
}
