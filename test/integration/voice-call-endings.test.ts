import { afterEach, describe, expect, it } from 'vitest';
import { GOODBYES } from '../../src/voice/session.ts';
import { MULAW_8K } from '../support/media-stream-client.ts';
import { roles, say, startVoiceHarness } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('silence, time limits, end-call and fillers on a call', { timeout: 15_000 }, () => {
  it('re-engages a silent caller once per interval', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, reengagementMs: 500, maxSilenceMs: 60_000 } });
    harness.llm.script({ text: 'Are you still there?' }, { text: 'Hello, can you hear me?' });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.turns.length === 1, 3000, 'the first re-engagement');
    expect(call.turns[0]).toMatchObject({ role: 'assistant', text: 'Are you still there?' });
    expect(call.turns[0]!.start_offset_ms).toBeGreaterThanOrEqual(490);
    const instruction = harness.llm.requests[0]!.messages.at(-1)!;
    expect(instruction.role).toBe('user');
    await call.client.waitFor(() => call.turns.length === 2, 3000, 'the second re-engagement');
    // The second interval counts from the end of the first re-engagement.
    expect(call.turns[1]!.start_offset_ms - call.turns[0]!.end_offset_ms).toBeGreaterThanOrEqual(490);
    // The instruction is not part of the history the next request sees.
    expect(harness.llm.requests[1]!.messages.filter((message) => message.role === 'user')).toHaveLength(1);
  });

  it('ends the call politely after the longest silence allowed', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, reengagementMs: 60_000, maxSilenceMs: 500 } });
    const call = await harness.call(MULAW_8K);
    expect(await call.ended).toBe('silence_timeout');
    expect((await call.running).state()).toBe('ended');
    expect(call.turns.map((turn) => turn.text)).toEqual([GOODBYES.silence_timeout]);
    expect((await call.client.closed).code).toBe(1000);
    expect(call.client.playedSound.length).toBeGreaterThan(10);
  });

  it('says a short goodbye and ends at the call\'s time limit, cutting off what it was saying', async () => {
    harness = await startVoiceHarness({ maxSeconds: 1.2 });
    harness.llm.script({ text: 'Let me tell you everything about our menu, our opening hours and our history, which is long.' });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.turns.length === 1, 3000, 'the greeting');
    void say(call, 'hours');
    expect(await call.ended).toBe('max_duration');
    expect(call.turns.at(-1)).toMatchObject({ role: 'assistant', text: GOODBYES.max_duration, interrupted: false });
    expect(call.turns.at(-1)!.start_offset_ms).toBeGreaterThanOrEqual(1190);
    expect((await call.client.closed).code).toBe(1000);
  });

  it('tells the caller the balance has run out when the balance, not the assistant, set the time limit', async () => {
    harness = await startVoiceHarness({ maxSeconds: 1, limitReason: 'balance_exhausted', settings: { waitForCustomer: true } });
    const call = await harness.call(MULAW_8K);
    expect(await call.ended).toBe('balance_exhausted');
    expect(call.turns.at(-1)).toMatchObject({ role: 'assistant', text: GOODBYES.balance_exhausted });
  });

  it('finishes its closing words after the end-call tool, then ends the call', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    harness.llm.script({ calls: [{ name: 'end_call', arguments: '{}' }] }, { text: 'Thank you for calling, goodbye!' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'bye');
    expect(await call.ended).toBe('assistant_end_call');
    expect(roles(call)).toEqual(['user: That is all, goodbye.', 'assistant: Thank you for calling, goodbye!']);
    expect(call.turns[1]!.interrupted).toBe(false);
    // The closing words were played to their end before the socket closed.
    const lastMark = call.client.echoed.at(-1)!;
    const closed = await call.client.closed;
    expect(closed.code).toBe(1000);
    expect(lastMark.name).toMatch(/^u\d+\.\d+$/);
  });

  it('speaks a filler once when a tool runs longer than the filler delay', async () => {
    const slowSearch = (_query: string, signal: AbortSignal) => new Promise<never[]>((resolve, reject) => {
      const timer = setTimeout(() => resolve([]), 900);
      signal.addEventListener('abort', () => { clearTimeout(timer); reject(signal.reason as Error); });
    });
    harness = await startVoiceHarness({
      settings: { waitForCustomer: true, fillers: true, fillerPhrases: ['One moment, please.'] },
      profile: { knowledgebaseId: 7 },
      searchKnowledge: slowSearch,
      fillerAfterMs: 300,
    });
    harness.llm.script({ calls: [{ name: 'search_knowledge_base', arguments: '{"query":"hours"}' }] }, { text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the reply');
    expect(harness.tts.requests.map((request) => request.text)).toEqual(['One moment, please.', 'We open at nine.']);
    expect(call.turns[1]!.text).toBe('One moment, please. We open at nine.');
  });

  it('speaks no filler when the tool is quick', async () => {
    harness = await startVoiceHarness({
      settings: { waitForCustomer: true, fillers: true, fillerPhrases: ['One moment, please.'] },
      profile: { knowledgebaseId: 7 },
      fillerAfterMs: 300,
    });
    harness.llm.script({ calls: [{ name: 'search_knowledge_base', arguments: '{"query":"hours"}' }] }, { text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the reply');
    expect(harness.tts.requests.map((request) => request.text)).toEqual(['We open at nine.']);
  });

  it('ends at once as a customer hang-up when the caller hangs up during a goodbye', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, maxSilenceMs: 300 } });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.client.received.some((message) => message.event === 'media'), 3000, 'the goodbye');
    const hungUpAt = performance.now();
    call.client.close();
    expect(await call.ended).toBe('customer_hangup');
    expect(performance.now() - hungUpAt).toBeLessThan(500);
  });
});
