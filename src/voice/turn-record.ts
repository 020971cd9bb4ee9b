/**
 * The one writer of a committed turn's record (hooks.ts `CallTurn`): sessions measure on the voice clock,
 * which is monotonic and has no date, so each turn is placed against the moment the call was answered, read
 * on both clocks at once.
 */
import type { CallTurn, TurnMetrics } from './hooks.ts';

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
    if (value !== undefined) metrics[name] = Math.round(value);
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
