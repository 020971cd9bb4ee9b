/**
 * Pairs what the callers timed with what the platform stored: each line the caller said is answered by the
 * assistant turn that follows the line's last committed caller turn in the call's row, whose metrics say where
 * the time went. Fragments of a line committed as turns of their own (and their replies) are passed over.
 */
import type { CallTurn, TurnMetrics } from '../../src/voice/hooks.ts';
import type { VoiceSettings } from '../../src/voice/settings.ts';
import { endOfTurnSilenceMs } from '../../src/voice/turns/endpointing.ts';
import { percentile } from '../percentile.ts';
import type { CallResult, TurnResult } from './protocol.ts';

export interface MeasuredTurn {
  callId: number;
  /** What the platform heard the caller say (the last turn committed for the line). */
  heard: string;
  feltMs: number;
  metrics: TurnMetrics;
  /** The silence the turn policy waited after the caller's speech: stored, or for a build that does not store it, the fixed policy's. */
  endpointMs: number;
}

/**
 * The measured turns of the calls' lines that got a reply; `unmatched` counts lines whose turns could not be
 * found in the stored row (not heard, or the row not yet written).
 */
export function matchTurns(results: CallResult[], stored: Map<number, CallTurn[]>, settings: VoiceSettings): { turns: MeasuredTurn[]; unmatched: number } {
  const turns: MeasuredTurn[] = [];
  let unmatched = 0;
  for (const result of results) {
    const rows = stored.get(result.callId) ?? [];
    let at = 0;
    for (const turn of result.turns) {
      const heard = turn.userTurns.at(-1);
      const userRow = heard === undefined ? -1 : rows.findIndex((row, index) => index >= at && row.role === 'user' && row.text === heard);
      const reply = userRow < 0 ? -1 : rows.findIndex((row, index) => index > userRow && row.role === 'assistant');
      if (reply < 0 || turn.feltMs === undefined || heard === undefined) {
        unmatched++;
        continue;
      }
      at = reply + 1;
      const metrics = rows[reply]!.metrics;
      turns.push({ callId: result.callId, heard, feltMs: turn.feltMs, metrics, endpointMs: metrics.end_of_turn_decision_ms ?? endOfTurnSilenceMs(settings, heard) });
    }
  }
  return { turns, unmatched };
}

/** Whether a line was cut: a fragment of it committed as a turn, or reply audio while the caller still spoke. */
export function cutShort(turn: TurnResult): boolean {
  return turn.userTurns.length > 1 || turn.replyWhileSpeaking > 0;
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

/** The words of a text as the word error rate compares them: lower case, digits spelled one by one, no punctuation. */
export function comparableWords(text: string): string[] {
  const digits = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine'];
  return text.toLowerCase().replace(/-/g, ' ').replace(/\d/g, (digit) => ` ${digits[Number(digit)]} `).replace(/[^a-z' ]/g, ' ').split(/\s+/).filter(Boolean);
}

/** Word edits (substitutions, insertions, deletions) from `said` to `heard`, and the words said. */
export function wordErrors(said: string, heard: string): { errors: number; words: number } {
  const reference = comparableWords(said);
  const hypothesis = comparableWords(heard);
  let row = Array.from({ length: hypothesis.length + 1 }, (_, j) => j);
  for (let i = 1; i <= reference.length; i++) {
    const next = [i];
    for (let j = 1; j <= hypothesis.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (reference[i - 1] === hypothesis[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return { errors: row[hypothesis.length]!, words: reference.length };
}

/**
 * Whether the recognizer repeated itself or went on past what was said: a run of two or more words heard twice
 * in a row that was not said twice in a row, or more words heard than said plus two.
 */
export function repeatsOrInvents(said: string, heard: string): boolean {
  const reference = comparableWords(said).join(' ');
  const words = comparableWords(heard);
  for (let size = 2; size * 2 <= words.length; size++) {
    for (let start = 0; start + 2 * size <= words.length; start++) {
      const unit = words.slice(start, start + size).join(' ');
      if (unit === words.slice(start + size, start + 2 * size).join(' ') && !reference.includes(`${unit} ${unit}`)) return true;
    }
  }
  return words.length > comparableWords(said).length + 2;
}
