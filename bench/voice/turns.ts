/**
 * Pairs what the callers timed with what the platform stored: the caller's n-th line is answered by the
 * call's (n+1)-th assistant turn (the first is the greeting), whose metrics say where the time went.
 */
import type { CallTurn, TurnMetrics } from '../../src/voice/hooks.ts';
import type { VoiceSettings } from '../../src/voice/settings.ts';
import { endOfTurnSilenceMs } from '../../src/voice/turns/endpointing.ts';
import { percentile } from '../percentile.ts';
import type { CallResult } from './protocol.ts';

export interface MeasuredTurn {
  callId: number;
  /** What the platform heard the caller say. */
  heard: string;
  feltMs: number;
  metrics: TurnMetrics;
  /** The silence the turn policy waited after the caller's speech, for these words. */
  endpointMs: number;
}

/**
 * The turns of calls whose stored turns line up with what their caller said (one user turn and one reply per
 * line); `unmatched` counts the calls that did not (a line split in two, or one not heard).
 */
export function matchTurns(results: CallResult[], stored: Map<number, CallTurn[]>, settings: VoiceSettings): { turns: MeasuredTurn[]; unmatched: number } {
  const turns: MeasuredTurn[] = [];
  let unmatched = 0;
  for (const result of results) {
    const rows = stored.get(result.callId) ?? [];
    const users = rows.filter((row) => row.role === 'user');
    const replies = rows.filter((row) => row.role === 'assistant').slice(1);
    if (users.length < result.turns.length || replies.length < result.turns.length) {
      unmatched++;
      continue;
    }
    result.turns.forEach((turn, index) => {
      const heard = users[index]!.text;
      turns.push({ callId: result.callId, heard, feltMs: turn.feltMs, metrics: replies[index]!.metrics, endpointMs: endOfTurnSilenceMs(settings, heard) });
    });
  }
  return { turns, unmatched };
}

/** p50 and p95 of a list, as "p50 / p95 ms". */
export function spread(values: number[]): string {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return 'n/a';
  return `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 95).toFixed(0)} ms`;
}

/** p50, p95 and the largest of a list, as "p50 / p95 / max ms". */
export function spreadToMax(values: number[]): string {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return 'n/a';
  return `${percentile(sorted, 50).toFixed(0)} / ${percentile(sorted, 95).toFixed(0)} / ${sorted.at(-1)!.toFixed(0)} ms`;
}

export const ms = (value: number | undefined) => (value === undefined ? '-' : `${value.toFixed(0)}`);
