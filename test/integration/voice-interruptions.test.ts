import { afterEach, describe, expect, it } from 'vitest';
import { MULAW_8K } from '../support/media-stream-client.ts';
import { tone } from '../support/speech-doubles.ts';
import { roles, say, startVoiceHarness, UTTERANCES } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('barge-in on a call', { timeout: 15_000 }, () => {
  it('stops within 200 ms when the caller barges in, aborts the model, and keeps only what was heard', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    const long = 'Our menu has many dishes. There is pasta with tomato and basil. There is pizza from the wood oven. There are salads and soups. We also have desserts every day.';
    harness.llm.script({ text: long, pieceDelayMs: 40 }, { text: 'Sure, go ahead.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 40, 5000, 'the reply to be playing');
    expect((await call.running).state()).toBe('speaking');
    const onset = await say(call, 'stop', 500);
    const clear = call.client.received.find((message) => message.event === 'clear');
    expect(clear).toBeDefined();
    expect(clear!.at - onset).toBeLessThan(200);
    // The model goes on until the caller's words show it was no cough; then it is aborted.
    await call.client.waitFor(() => harness!.llm.aborted.length === 1, 3000, 'the model to be aborted');
    await call.client.waitFor(() => call.turns.length === 4, 5000, 'the second reply');
    const cut = call.turns[1]!;
    expect(cut).toMatchObject({ role: 'assistant', interrupted: true });
    expect(cut.text.length).toBeGreaterThan(0);
    expect(long.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBeLessThan(long.length);
    expect(harness.llm.requests[1]!.messages.at(-2)).toEqual({ role: 'assistant', content: cut.text });
    // Nothing of the cut reply played after the clear, beyond the lead already on its way.
    const soundAfter = call.client.playedSound.filter((at) => at > clear!.at + 120 && at < clear!.at + 300);
    expect(soundAfter).toHaveLength(0);
  });

  it('goes on with the reply after a false start: a noise without words holds the audio, then resumes it', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    const reply = 'Let me tell you about our menu. We have pasta and pizza. We have salads and soups. We have desserts every day.';
    harness.llm.script({ text: reply });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 20, 5000, 'the reply to be playing');
    // A knock: loud enough to be speech for a moment, a sound no recognizer makes words of.
    const onset = await call.client.say(tone(1500, 250));
    const clear = call.client.received.find((message) => message.event === 'clear' && message.at >= onset);
    expect(clear, 'the audio held while the noise lasted').toBeDefined();
    await call.client.waitFor(() => call.turns.length === 2, 10_000, 'the reply to finish');
    // The reply went on after the noise, to its end: nothing was aborted, nothing answered.
    expect(call.client.playedSound.some((at) => at > clear!.at + 300)).toBe(true);
    expect(roles(call)).toEqual(['user: What are your opening hours?', `assistant: ${reply}`]);
    expect(call.turns[1]!.interrupted).toBe(false);
    expect(harness.llm.aborted).toHaveLength(0);
    expect(harness.llm.requests).toHaveLength(1);
  });

  it('lets a backchannel pass without interrupting when min interrupt words apply', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, minInterruptWords: 2 } });
    const reply = 'Let me tell you about our menu. We have pasta and pizza. We have salads and soups. We have desserts every day.';
    harness.llm.script({ text: reply });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 20, 5000, 'the reply to be playing');
    await say(call, 'uhHuh', 400);
    await call.client.waitFor(() => harness!.stt.heard.includes('uh-huh'), 3000, 'the backchannel to be transcribed');
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the reply to finish');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(call.client.received.some((message) => message.event === 'clear')).toBe(false);
    expect(harness.stt.heard).toContain('uh-huh');
    expect(roles(call)).toEqual(['user: What are your opening hours?', `assistant: ${reply}`]);
    expect(call.turns[1]!.interrupted).toBe(false);
    expect(harness.llm.requests).toHaveLength(1);
  });

  it('interrupts on enough words when min interrupt words apply', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, minInterruptWords: 2 } });
    harness.llm.script({ text: 'Let me tell you about our menu. We have pasta and pizza. We have salads and soups and desserts too.' }, { text: 'Yes?' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 20, 5000, 'the reply to be playing');
    await say(call, 'stop', 400);
    await call.client.waitFor(() => call.turns.length === 4, 8000, 'the answer to the interruption');
    expect(call.client.received.some((message) => message.event === 'clear')).toBe(true);
    expect(call.turns[1]!.interrupted).toBe(true);
    expect(call.turns[2]!.text).toBe(UTTERANCES.stop.text);
  });

  it('goes on speaking over the caller when interruptions are off, and does not answer what was said over it', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, allowInterruptions: false } });
    const reply = 'Let me tell you about our menu. We have pasta and pizza. We have salads and soups. We have desserts every day.';
    harness.llm.script({ text: reply });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 20, 5000, 'the reply to be playing');
    await say(call, 'stop', 500);
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the reply to finish');
    await new Promise((resolve) => setTimeout(resolve, 800));
    expect(call.client.received.some((message) => message.event === 'clear')).toBe(false);
    expect(roles(call)).toEqual(['user: What are your opening hours?', `assistant: ${reply}`]);
    expect(harness.llm.requests).toHaveLength(1);
  });
});
