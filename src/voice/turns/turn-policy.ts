/**
 * When the caller's turn is over, decided from three things: the voice detector's pause (the caller stopped),
 * the turn model's score of the voice at that pause (how finished it sounds), and the words (how finished
 * they read). A pure reducer: the listener (listening/listener.ts) feeds it what happened and carries out
 * what it asks (start or discard a held draft of the reply, commit the turn, look again at a time).
 *
 * How long the silence after the voice must last before the turn is committed (`endpoint_sensitivity` s,
 * 0..5, higher answers sooner):
 * - complete (the model scores the voice finished and the words end a sentence): 150 + 100 / (1 + s) ms:
 *   250 at 0, 217 at the default 0.5, 200 at 1, 167 at 5;
 * - incomplete (the voice is mid-thought and the words do not end a sentence, or the words trail off: a comma,
 *   an ellipsis, and under `ai` a last word such as "and", "the", "to", "um"): 1000 + 1000 / (1 + s) ms: 2000
 *   at 0, 1667 at the default, 1500 at 1, 1167 at 5, longer than the pauses people make inside a thought
 *   (0.5-0.9 s);
 * - unsure (voice and words disagree: the voice sounds finished but the recognizer wrote no full stop, as for
 *   a number read in groups, "4456" of "4456, 7890"; or the voice sounds unfinished but the words end a
 *   sentence): 60 % of the way from complete to incomplete, 1087 ms at the default, still past a thought's pause;
 * - without a score (no turn model, or it failed): the silence of the policy before the turn model, 200 +
 *   1000 / (1 + 1.5·s) ms under `vad`, scaled by the words under `ai` (endpointing.ts).
 * `endpoint_type` keeps its meaning: `vad` hears the voice (the detector's silence, the turn model's score, and
 * the recognizer's punctuation, which it sets by the voice too), `ai` also reads the words themselves. While
 * the model is scoring the turn is not committed, for at most the incomplete wait.
 */
import { completeness, endOfTurnSilenceMs, type Completeness } from './endpointing.ts';

export interface TurnPolicySettings {
  endpointType: 'vad' | 'ai';
  endpointSensitivity: number;
  /** The language of the words (BCP 47), for the text check's vocabulary; English when not given. */
  sttLanguage?: string;
  /**
   * The least silence that ends a turn, whatever the evidence: while an outbound call's answer is judged, a
   * turn ends only when the callee stops for an answer, not at the pause between two sentences of a greeting.
   */
  minSilenceMs?: number;
}

/** A turn model's score at or above this calls the voice finished (the model's own threshold). */
export const COMPLETE_SCORE = 0.5;
/** A pause whose words a streaming recognizer has not settled is committed with what it has after this long. */
export const SETTLE_WAIT_MS = 2000;

function clampSensitivity(sensitivity: number): number {
  return Math.min(Math.max(sensitivity, 0), 5);
}

export function completeSilenceMs(sensitivity: number): number {
  return Math.round(150 + 100 / (1 + clampSensitivity(sensitivity)));
}

export function incompleteSilenceMs(sensitivity: number): number {
  return Math.round(1000 + 1000 / (1 + clampSensitivity(sensitivity)));
}

export function unsureSilenceMs(sensitivity: number): number {
  const complete = completeSilenceMs(sensitivity);
  return Math.round(complete + 0.6 * (incompleteSilenceMs(sensitivity) - complete));
}

export type TurnVerdict = 'complete' | 'incomplete' | 'unsure' | 'no_score';

/**
 * How finished the words read: under `ai` by their last word too; under `vad` by the recognizer's punctuation,
 * except that a full stop after a word no sentence ends on ("a table for.") is the recognizer's, written at the
 * pause, and finishes nothing.
 */
function wordsCompleteness(settings: TurnPolicySettings, text: string): Completeness {
  const language = settings.sttLanguage ?? 'en';
  if (settings.endpointType === 'ai') return completeness(text, language);
  const punctuation = completeness(text, language, false);
  return punctuation === 'complete' && completeness(text, language) === 'incomplete' ? 'unknown' : punctuation;
}

/** The silence a pause needs before its turn is committed, and why. */
export function turnSilence(settings: TurnPolicySettings, evidence: { score: number | undefined; text: string | undefined }): { verdict: TurnVerdict; silenceMs: number } {
  const s = settings.endpointSensitivity;
  const words = evidence.text === undefined ? 'unknown' : wordsCompleteness(settings, evidence.text);
  let verdict: TurnVerdict;
  if (evidence.score === undefined) verdict = 'no_score';
  else if (words === 'incomplete') verdict = 'incomplete';
  else if (evidence.score >= COMPLETE_SCORE) verdict = words === 'complete' ? 'complete' : 'unsure';
  else verdict = words === 'complete' ? 'unsure' : 'incomplete';
  switch (verdict) {
    case 'complete':
      return { verdict, silenceMs: completeSilenceMs(s) };
    case 'incomplete':
      return { verdict, silenceMs: incompleteSilenceMs(s) };
    case 'unsure':
      return { verdict, silenceMs: unsureSilenceMs(s) };
    case 'no_score':
      return { verdict, silenceMs: endOfTurnSilenceMs(settings, evidence.text ?? '') };
  }
}

/** What the reducer is told, in the order it happened; times are clock milliseconds. */
export type TurnInput =
  /** The voice detector heard speech start (or resume within the turn). */
  | { type: 'speech'; at: number }
  /** The voice detector heard the caller stop; their voice ended at `voiceEndedAt`. `scoring`: the turn model was asked. */
  | { type: 'pause'; at: number; voiceEndedAt: number; scoring: boolean }
  /**
   * Words of the turn. `covers`: they were heard to the pause (not words from before it); `settled`: the
   * recognizer will not change them (a segment recognizer's always are; a streaming one's final).
   */
  | { type: 'words'; at: number; text: string; covers: boolean; settled: boolean }
  /** The turn model's score of the current pause, or undefined when it failed. */
  | { type: 'score'; at: number; score: number | undefined }
  /** A time the reducer asked to be woken at. */
  | { type: 'tick'; at: number };

export type TurnAction =
  /** Draft the reply to `text` now and hold it: the turn is not over yet. */
  | { type: 'draft'; text: string }
  /** The caller went on: the held draft answers words that are no longer the turn. */
  | { type: 'discard_draft' }
  /** The turn is over. `decisionMs`: from the end of the voice to now; empty `text`: nothing was said (noise). */
  | { type: 'commit'; text: string; startedAt: number; voiceEndedAt: number; transcribedAt: number; decisionMs: number; score: number | undefined; verdict: TurnVerdict }
  /** Evaluate again at `at` (a tick), unless something happens first. */
  | { type: 'wake'; at: number };

export interface TurnState {
  /** The turn has begun (speech was heard) and is not committed. */
  open: boolean;
  speaking: boolean;
  startedAt: number;
  /** Where the voice ended at the current pause; undefined while the caller speaks. */
  voiceEndedAt: number | undefined;
  /** The turn model was asked about the current pause and has not answered. */
  scoring: boolean;
  score: number | undefined;
  text: string;
  covers: boolean;
  settled: boolean;
  transcribedAt: number;
  /** The words a held draft answers. */
  draft: string | undefined;
}

export const IDLE_TURN: TurnState = {
  open: false, speaking: false, startedAt: 0, voiceEndedAt: undefined, scoring: false, score: undefined,
  text: '', covers: false, settled: false, transcribedAt: 0, draft: undefined,
};

/**
 * One step of the turn: the state after `input`, and what to do. `heardUntil`: the time up to which the voice
 * detector has judged the caller's audio (a detector on a busy thread lags); a pause counts as long only as
 * the audio heard to be silent, so the turn is never committed while the caller's next words may be unheard.
 */
export function stepTurn(settings: TurnPolicySettings, state: TurnState, input: TurnInput, heardUntil = input.at): { state: TurnState; actions: TurnAction[] } {
  const actions: TurnAction[] = [];
  let next = state;
  switch (input.type) {
    case 'speech':
      if (state.draft !== undefined) actions.push({ type: 'discard_draft' });
      next = { ...state, open: true, speaking: true, startedAt: state.open ? state.startedAt : input.at, voiceEndedAt: undefined, scoring: false, score: undefined, covers: false, draft: undefined };
      return { state: next, actions };
    case 'pause':
      if (!state.open) return { state, actions };
      next = { ...state, speaking: false, voiceEndedAt: input.voiceEndedAt, scoring: input.scoring, score: undefined, covers: false, settled: false };
      break;
    case 'words':
      if (!state.open) return { state, actions };
      next = { ...state, text: input.text, covers: input.covers && !state.speaking, settled: input.settled, transcribedAt: input.at };
      break;
    case 'score':
      if (!state.open || state.speaking || !state.scoring) return { state, actions };
      next = { ...state, scoring: false, score: input.score };
      break;
    case 'tick':
      break;
  }
  return decide(settings, next, Math.min(input.at, heardUntil), actions);
}

function decide(settings: TurnPolicySettings, state: TurnState, now: number, actions: TurnAction[]): { state: TurnState; actions: TurnAction[] } {
  if (!state.open || state.speaking || state.voiceEndedAt === undefined || !state.covers) return { state, actions };
  let next = state;
  if (state.text && state.draft !== state.text) {
    if (state.draft !== undefined) actions.push({ type: 'discard_draft' });
    actions.push({ type: 'draft', text: state.text });
    next = { ...next, draft: state.text };
  }
  // A score on its way may only lengthen the wait so far: a model that never answers holds the turn for the longest one.
  const { verdict, silenceMs } = state.scoring
    ? { verdict: 'no_score' as const, silenceMs: incompleteSilenceMs(settings.endpointSensitivity) }
    : turnSilence(settings, { score: state.score, text: state.text });
  const waitMs = Math.max(silenceMs, settings.minSilenceMs ?? 0);
  const commitAt = state.voiceEndedAt + (state.settled ? waitMs : Math.max(waitMs, SETTLE_WAIT_MS));
  if (now < commitAt) {
    actions.push({ type: 'wake', at: commitAt });
    return { state: next, actions };
  }
  actions.push({
    type: 'commit', text: state.text, startedAt: state.startedAt, voiceEndedAt: state.voiceEndedAt,
    transcribedAt: Math.max(state.transcribedAt, state.voiceEndedAt), decisionMs: now - state.voiceEndedAt, score: state.score, verdict,
  });
  return { state: IDLE_TURN, actions };
}
