import { afterEach, describe, expect, it } from 'vitest';
import { L16_16K, MULAW_8K } from '../support/media-stream-client.ts';
import { tone } from '../support/speech-doubles.ts';
import { startVoiceHarness, UTTERANCES, type HarnessCall } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function say(call: HarnessCall, utterance: keyof typeof UTTERANCES, ms = 600): Promise<number> {
  return call.client.say(tone(UTTERANCES[utterance].pitch, ms));
}

const roles = (call: HarnessCall) => call.turns.map((turn) => `${turn.role}: ${turn.text}`);

describe('a call session over Media Streams', { timeout: 15_000 }, () => {
  it('greets first with the initial message, its variables filled, then answers the caller', async () => {
    harness = await startVoiceHarness();
    harness.llm.script({ text: 'We are open from nine to five.' });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.turns.length === 1, 5000, 'the greeting');
    expect(call.answered).toBe(true);
    expect(harness.tts.requests[0]).toMatchObject({ text: 'Hello Anna, how can I help?', voice: 'tone-voice', speed: 1, language: 'en-US' });
    expect(call.turns[0]).toMatchObject({ role: 'assistant', text: 'Hello Anna, how can I help?', interrupted: false });
    // Every sentence's mark went out after its audio and came back.
    expect(call.client.echoed.length).toBeGreaterThan(0);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the reply');
    expect(roles(call)).toEqual(['assistant: Hello Anna, how can I help?', 'user: What are your opening hours?', 'assistant: We are open from nine to five.']);
    const request = harness.llm.requests[0]!;
    expect(request.messages[0]).toEqual({ role: 'system', content: 'You are the receptionist of Trattoria Roma.' });
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello Anna, how can I help?' },
      { role: 'user', content: 'What are your opening hours?' },
    ]);
    const metrics = call.turns[2]!.metrics;
    expect(metrics.latencyMs).toBeGreaterThan(0);
    expect(metrics.llmFirstTokenMs).toBeGreaterThanOrEqual(0);
    expect(metrics.ttsFirstByteMs).toBeGreaterThanOrEqual(0);
    expect(call.turns[1]!.metrics.sttDelayMs).toBeGreaterThanOrEqual(0);
  });

  it('waits for the customer to speak first when told to', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    harness.llm.script({ text: 'Of course, for what time?' });
    const call = await harness.call(MULAW_8K);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(call.client.received.filter((message) => message.event === 'media')).toHaveLength(0);
    expect(harness.tts.requests).toHaveLength(0);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the reply');
    expect(roles(call)).toEqual(['user: Please book a table for two tonight.', 'assistant: Of course, for what time?']);
  });

  it('holds a two-turn exchange, each reply seeing the whole history', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    harness.llm.script({ text: 'We open at nine.' }, { text: 'Done, see you tonight.' });
    const call = await harness.call(L16_16K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the first reply');
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 4, 5000, 'the second reply');
    expect(roles(call)).toEqual([
      'user: What are your opening hours?', 'assistant: We open at nine.',
      'user: Please book a table for two tonight.', 'assistant: Done, see you tonight.',
    ]);
    expect(harness.llm.requests[1]!.messages.slice(1)).toEqual([
      { role: 'user', content: 'What are your opening hours?' },
      { role: 'assistant', content: 'We open at nine.' },
      { role: 'user', content: 'Please book a table for two tonight.' },
    ]);
    for (const turn of call.turns.filter((t) => t.role === 'assistant')) expect(turn.metrics.latencyMs).toBeGreaterThan(0);
  });

  it('answers μ-law 8 kHz in μ-law and l16 16 kHz in l16, 20 ms per frame', async () => {
    harness = await startVoiceHarness();
    const mulaw = await harness.call(MULAW_8K);
    await mulaw.client.waitFor(() => mulaw.turns.length === 1, 5000, 'the μ-law greeting');
    const l16 = await harness.call(L16_16K);
    await l16.client.waitFor(() => l16.turns.length === 1, 5000, 'the l16 greeting');
    const sizes = (call: HarnessCall) => new Set(call.client.received.filter((m) => m.event === 'media').map((m) => m.bytes));
    expect(sizes(mulaw)).toEqual(new Set([160]));
    expect(sizes(l16)).toEqual(new Set([640]));
    expect(mulaw.client.playedSound.length).toBeGreaterThan(10);
    expect(l16.client.playedSound.length).toBeGreaterThan(10);
  });

  it('stops within 200 ms when the caller barges in, aborts the model, and keeps only what was heard', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    const long = 'Our menu has many dishes. There is pasta with tomato and basil. There is pizza from the wood oven. There are salads and soups. We also have desserts every day.';
    harness.llm.script({ text: long, pieceDelayMs: 40 }, { text: 'Sure, go ahead.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 40, 5000, 'the reply to be playing');
    const onset = await say(call, 'stop', 500);
    const clear = call.client.received.find((message) => message.event === 'clear');
    expect(clear).toBeDefined();
    expect(clear!.at - onset).toBeLessThan(200);
    expect(harness.llm.aborted).toHaveLength(1);
    await call.client.waitFor(() => call.turns.length === 4, 5000, 'the second reply');
    const cut = call.turns[1]!;
    expect(cut).toMatchObject({ role: 'assistant', interrupted: true, metrics: { interrupted: true } });
    expect(cut.text.length).toBeGreaterThan(0);
    expect(long.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBeLessThan(long.length);
    expect(harness.llm.requests[1]!.messages.at(-2)).toEqual({ role: 'assistant', content: cut.text });
    // Nothing of the cut reply played after the clear, beyond the lead already on its way.
    const soundAfter = call.client.playedSound.filter((at) => at > clear!.at + 120 && at < clear!.at + 300);
    expect(soundAfter).toHaveLength(0);
  });
});
