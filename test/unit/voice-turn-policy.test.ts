import { describe, expect, it } from 'vitest';
import { completeSilenceMs, IDLE_TURN, incompleteSilenceMs, SETTLE_WAIT_MS, stepTurn, turnSilence, unsureSilenceMs, type TurnAction, type TurnInput, type TurnPolicySettings, type TurnState } from '../../src/voice/turns/turn-policy.ts';

const vad: TurnPolicySettings = { endpointType: 'vad', endpointSensitivity: 0.5 };
const ai: TurnPolicySettings = { endpointType: 'ai', endpointSensitivity: 0.5 };

/** Runs the inputs through the reducer; the actions of each step, and the state at the end. */
function run(settings: TurnPolicySettings, inputs: TurnInput[]): { actions: TurnAction[][]; state: TurnState } {
  let state = IDLE_TURN;
  const actions = inputs.map((input) => {
    const step = stepTurn(settings, state, input);
    state = step.state;
    return step.actions;
  });
  return { actions, state };
}

const speech = (at: number): TurnInput => ({ type: 'speech', at });
const pause = (at: number, voiceEndedAt = at - 100): TurnInput => ({ type: 'pause', at, voiceEndedAt, scoring: true });
const words = (at: number, text: string, covers = true, settled = true): TurnInput => ({ type: 'words', at, text, covers, settled });
const score = (at: number, value: number | undefined): TurnInput => ({ type: 'score', at, score: value });
const tick = (at: number): TurnInput => ({ type: 'tick', at });

describe('the turn policy', () => {
  it('maps the sensitivity to a short wait for a finished voice and a long one for a voice mid-thought', () => {
    expect([completeSilenceMs(0), completeSilenceMs(0.5), completeSilenceMs(1), completeSilenceMs(5)]).toEqual([250, 217, 200, 167]);
    expect([incompleteSilenceMs(0), incompleteSilenceMs(0.5), incompleteSilenceMs(5), incompleteSilenceMs(9)]).toEqual([2000, 1667, 1167, 1167]);
    expect([unsureSilenceMs(0), unsureSilenceMs(0.5), unsureSilenceMs(5)]).toEqual([1300, 1087, 767]);
  });

  it('weighs the voice and the words: the recognizer\'s punctuation under vad, the words themselves too under ai', () => {
    expect(turnSilence(vad, { score: 0.9, text: 'Sounds good.' })).toEqual({ verdict: 'complete', silenceMs: 217 });
    expect(turnSilence(vad, { score: 0.9, text: 'I want the...' })).toEqual({ verdict: 'incomplete', silenceMs: 1667 });
    // A finished voice, but the recognizer wrote no full stop: a number read in groups, "4456" of "4456, 7890".
    expect(turnSilence(vad, { score: 0.9, text: 'My card number is 4456' })).toEqual({ verdict: 'unsure', silenceMs: 1087 });
    expect(turnSilence(vad, { score: 0.9, text: 'I want the' })).toEqual({ verdict: 'unsure', silenceMs: 1087 });
    expect(turnSilence(ai, { score: 0.9, text: 'I want the' })).toEqual({ verdict: 'incomplete', silenceMs: 1667 });
    // An unfinished voice, but a finished sentence.
    expect(turnSilence(vad, { score: 0.2, text: 'Sounds good.' })).toEqual({ verdict: 'unsure', silenceMs: 1087 });
    expect(turnSilence(ai, { score: 0.2, text: 'Sounds good.' })).toEqual({ verdict: 'unsure', silenceMs: 1087 });
    expect(turnSilence(ai, { score: 0.2, text: 'my name is Anna' })).toEqual({ verdict: 'incomplete', silenceMs: 1667 });
    // The recognizer's full stop at the pause after a number, or after a word no sentence ends on, finishes nothing.
    expect(turnSilence(vad, { score: 0.95, text: 'My phone number is 555.' })).toEqual({ verdict: 'unsure', silenceMs: 1087 });
    expect(turnSilence(vad, { score: 0.95, text: 'I would like to book a table for.' })).toEqual({ verdict: 'unsure', silenceMs: 1087 });
    expect(turnSilence(ai, { score: 0.95, text: 'I would like to book a table for.' })).toEqual({ verdict: 'incomplete', silenceMs: 1667 });
    // Without a turn model: the silence of the policy before it.
    expect(turnSilence(vad, { score: undefined, text: 'Sounds good.' })).toEqual({ verdict: 'no_score', silenceMs: 771 });
    expect(turnSilence(ai, { score: undefined, text: 'Sounds good.' })).toEqual({ verdict: 'no_score', silenceMs: 386 });
  });

  it('commits a finished turn a short silence after the voice ended, with the draft started at the pause', () => {
    const { actions, state } = run(vad, [speech(0), words(600, 'Sounds', false), pause(1100, 1000), words(1140, 'Sounds good.'), score(1160, 0.93), tick(1217)]);
    expect(actions[1]).toEqual([]);
    expect(actions[2]).toEqual([]);
    // The words came with the model still scoring: the draft starts; the turn waits for the score (at most the longest wait).
    expect(actions[3]).toEqual([{ type: 'draft', text: 'Sounds good.' }, { type: 'wake', at: 2667 }]);
    expect(actions[4]).toEqual([{ type: 'wake', at: 1217 }]);
    expect(actions[5]).toEqual([{
      type: 'commit', text: 'Sounds good.', startedAt: 0, voiceEndedAt: 1000, transcribedAt: 1140, decisionMs: 217, score: 0.93, verdict: 'complete',
    }]);
    expect(state).toEqual(IDLE_TURN);
  });

  it('counts a pause only as long as the audio the voice detector has judged: a lagging detector holds the commit', () => {
    let state = IDLE_TURN;
    for (const input of [speech(0), pause(1100, 1000), words(1140, 'Sounds good.'), score(1160, 0.93)]) state = stepTurn(vad, state, input).state;
    // Due at 1217, but the detector has judged the audio only to 1100 (its thread is behind): look again.
    const behind = stepTurn(vad, state, tick(1300), 1100);
    expect(behind.actions).toEqual([{ type: 'wake', at: 1217 }]);
    // It catches up and hears the caller go on: the turn goes on, the draft is dropped.
    expect(stepTurn(vad, behind.state, speech(1150), 1300).actions).toEqual([{ type: 'discard_draft' }]);
    // Or it catches up and hears silence: committed then.
    expect(stepTurn(vad, behind.state, tick(1310), 1310).actions).toMatchObject([{ type: 'commit', text: 'Sounds good.', decisionMs: 310 }]);
  });

  it('waits at least the least silence it is given, though the turn sounds finished: a greeting being judged', () => {
    const judging = { ...vad, minSilenceMs: 800 };
    const { actions } = run(judging, [speech(0), pause(1100, 1000), words(1140, 'Hi, you have reached Sam.'), score(1160, 0.93), tick(1217), speech(1340)]);
    expect(actions[3]).toEqual([{ type: 'wake', at: 1800 }]);
    expect(actions[4]).toEqual([{ type: 'wake', at: 1800 }]);
    // The greeting's next sentence: the same turn goes on.
    expect(actions[5]).toEqual([{ type: 'discard_draft' }]);
    expect(run(judging, [speech(0), pause(1100, 1000), words(1140, 'Hello?'), score(1160, 0.93), tick(1800)]).actions[4]).toEqual([
      expect.objectContaining({ type: 'commit', text: 'Hello?', decisionMs: 800, verdict: 'complete' }),
    ]);
  });

  it('commits at once when the evidence comes after the silence it needs', () => {
    const { actions } = run(vad, [speech(0), pause(1100, 1000), score(1150, 0.9), words(1300, 'Yes.')]);
    expect(actions[3]).toEqual([{ type: 'draft', text: 'Yes.' }, expect.objectContaining({ type: 'commit', text: 'Yes.', decisionMs: 300 })]);
  });

  it('waits long at a pause mid-thought, and resumes the turn when the caller goes on, discarding the draft', () => {
    const { actions, state } = run(ai, [
      speech(0), pause(1600, 1500), words(1650, 'My card number is 4456,'), score(1660, 0.3), tick(2400),
      speech(2300), pause(3900, 3800), words(3950, 'My card number is 4456, 7890.'), score(3960, 0.95), tick(4887),
    ]);
    expect(actions[2]).toEqual([{ type: 'draft', text: 'My card number is 4456,' }, { type: 'wake', at: 1500 + 1667 }]);
    expect(actions[3]).toEqual([{ type: 'wake', at: 1500 + 1667 }]);
    expect(actions[4]).toEqual([{ type: 'wake', at: 1500 + 1667 }]);
    expect(actions[5]).toEqual([{ type: 'discard_draft' }]);
    expect(actions[7]).toEqual([{ type: 'draft', text: 'My card number is 4456, 7890.' }, { type: 'wake', at: 3800 + 1667 }]);
    // Its end is a number too, which a full stop does not finish: the unsure wait.
    expect(actions[9]).toEqual([expect.objectContaining({ type: 'commit', text: 'My card number is 4456, 7890.', startedAt: 0, voiceEndedAt: 3800, decisionMs: 1087, verdict: 'unsure' })]);
    expect(state.open).toBe(false);
  });

  it('does not commit or draft on words from before the pause', () => {
    const { actions } = run(vad, [speech(0), pause(1100, 1000), score(1150, 0.9), words(1200, 'Book a table', false), tick(1500)]);
    expect(actions.slice(2).flat()).toEqual([]);
  });

  it('replaces the draft when the settled words differ from those it answers', () => {
    const { actions } = run(vad, [speech(0), pause(1100, 1000), words(1150, 'Book a table for', true, false), words(1300, 'Book a table for two.', true, true), score(1310, 0.8)]);
    expect(actions[2]).toEqual([{ type: 'draft', text: 'Book a table for' }, { type: 'wake', at: 1000 + SETTLE_WAIT_MS }]);
    expect(actions[3]).toEqual([{ type: 'discard_draft' }, { type: 'draft', text: 'Book a table for two.' }, { type: 'wake', at: 2667 }]);
    expect(actions[4]).toEqual([expect.objectContaining({ type: 'commit', text: 'Book a table for two.', decisionMs: 310 })]);
  });

  it('waits for unsettled words, then goes with what it has', () => {
    const { actions } = run(vad, [speech(0), pause(1100, 1000), score(1120, 0.9), words(1150, 'Book a table', true, false), tick(1000 + SETTLE_WAIT_MS)]);
    expect(actions[3]).toEqual([{ type: 'draft', text: 'Book a table' }, { type: 'wake', at: 1000 + SETTLE_WAIT_MS }]);
    expect(actions[4]).toEqual([expect.objectContaining({ type: 'commit', text: 'Book a table', verdict: 'unsure' })]);
  });

  it('decides by the silence alone when the turn model fails', () => {
    const { actions } = run(vad, [speech(0), pause(1100, 1000), words(1150, 'Hello.'), score(1200, undefined), tick(1771)]);
    expect(actions[3]).toEqual([{ type: 'wake', at: 1771 }]);
    expect(actions[4]).toEqual([expect.objectContaining({ type: 'commit', text: 'Hello.', verdict: 'no_score', score: undefined })]);
  });

  it('commits a pause without words as empty once it has lasted, a noise and not a turn, and drafts nothing', () => {
    const { actions } = run(vad, [speech(0), pause(400, 300), score(420, 0.7), words(450, ''), tick(1387)]);
    expect(actions[3]).toEqual([{ type: 'wake', at: 1387 }]);
    expect(actions[4]).toEqual([expect.objectContaining({ type: 'commit', text: '' })]);
  });

  it('ignores what comes when no turn is open', () => {
    expect(run(vad, [pause(100), words(200, 'Hi.'), score(300, 0.9), tick(400)]).actions.flat()).toEqual([]);
  });
});
