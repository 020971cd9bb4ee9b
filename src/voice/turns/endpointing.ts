/**
 * When the caller's turn is over. Two policies, chosen by `endpoint_type`:
 *
 * - `vad`: the turn ends after a stretch of silence following speech. `endpoint_sensitivity` (0..5, default
 *   0.5) sets that stretch: silenceMs = 200 + 1000 / (1 + 1.5·s), so 0 waits 1200 ms, the default 771 ms,
 *   1 waits 600 ms, 2 waits 450 ms and 5 waits 318 ms. Higher sensitivity answers sooner and risks cutting
 *   in on a pause.
 * - `ai`: the same silence, scaled by what the words say. A cheap text check (no model call, so no network
 *   delay in the one place a caller feels it most) reads the transcript: a turn that ends like a finished
 *   sentence or question is answered after half the silence (never under 250 ms); one that trails off on a
 *   conjunction, a preposition, an article or a hesitation ("and", "to", "the", "um") waits twice the
 *   silence (at most 2500 ms); anything else waits the plain silence. Without words (the transcript is not
 *   in yet) it falls back to the plain silence. The trailing words are those of the caller's language.
 */
import { hasLanguagePack, languagePack } from '../../lib/languages/index.ts';

const MIN_AI_SILENCE_MS = 250;
const MAX_AI_SILENCE_MS = 2500;

/** The silence after speech that ends a turn under the `vad` policy. */
export function vadSilenceMs(sensitivity: number): number {
  const s = Math.min(Math.max(sensitivity, 0), 5);
  return Math.round(200 + 1000 / (1 + 1.5 * s));
}

export type Completeness = 'complete' | 'incomplete' | 'unknown';

/**
 * How finished the words of a turn sound, by their punctuation and, when `readWords`, their last word against
 * the trailing words of `language` (BCP 47; lib/languages). Digits that may be the first group of a number are
 * never finished by their full stop.
 */
export function completeness(transcript: string, language = 'en', readWords = true): Completeness {
  const text = transcript.trim();
  if (!text) return 'unknown';
  // A language without a pack (one only a hosted recognizer hears) is judged by its punctuation alone.
  const pack = hasLanguagePack(language) ? languagePack(language) : undefined;
  // Numbers are words too: "my number is 4 5 6 7" ends on 7, not on "is".
  const lastWord = /([\p{L}\p{N}']+)[^\p{L}\p{N}']*$/u.exec(text)?.[1]?.toLowerCase();
  if (/(?:,|-|—|\.\.\.|…)$/.test(text) || (readWords && lastWord !== undefined && pack?.trailingWords.has(lastWord))) return 'incomplete';
  if (/[.!?]["')\]]*$/.test(text) && !mayBeFirstGroup(text, pack?.countWords)) return 'complete';
  return 'unknown';
}

/**
 * Whether the words end on digits that may be the first group of a number read in groups ("555." of
 * "555, 0199", "22." of "22, no sorry, 32 Main Street"): a recognizer writes the full stop at the pause, so it
 * does not finish the words. One or two digits after a word of `countWords` are a time or a count ("Tuesday at
 * 3.", "a table for 2."), and a clock time ("3:30.") is one: those finish the words as any word does.
 */
function mayBeFirstGroup(text: string, countWords: ReadonlySet<string> | undefined): boolean {
  const [previous, last] = (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).slice(-2);
  if (last === undefined || !/^\p{N}+$/u.test(last)) return false;
  if (/\p{N}:\p{N}{2}\P{N}*$/u.test(text)) return false;
  return last.length > 2 || previous === undefined || !countWords?.has(previous);
}

/** The silence after speech that ends a turn, given the policy and the words heard so far. */
export function endOfTurnSilenceMs(policy: { endpointType: 'vad' | 'ai'; endpointSensitivity: number; sttLanguage?: string }, transcript: string): number {
  const silence = vadSilenceMs(policy.endpointSensitivity);
  if (policy.endpointType === 'vad') return silence;
  switch (completeness(transcript, policy.sttLanguage)) {
    case 'complete':
      return Math.max(Math.round(silence / 2), MIN_AI_SILENCE_MS);
    case 'incomplete':
      return Math.min(silence * 2, MAX_AI_SILENCE_MS);
    case 'unknown':
      return silence;
  }
}
