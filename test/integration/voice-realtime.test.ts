import http from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createSafeFetch } from '../../src/lib/safe-fetch.ts';
import { OpenAiRealtimeModel } from '../../src/providers/realtime/openai-realtime.ts';
import { GOODBYES, REENGAGE_INSTRUCTION } from '../../src/voice/session.ts';
import { startFakeRealtimeServer, type FakeRealtimeOptions, type FakeRealtimeServer } from '../fakes/realtime-server.ts';
import { L16_16K, MULAW_8K } from '../support/media-stream-client.ts';
import { listenOnLoopback } from '../support/ports.ts';
import { roles, say, startVoiceHarness, UTTERANCES, type HarnessOptions } from '../support/voice-harness.ts';

/**
 * `engine_type: multimodal` over a real socket: the scripted Media Streams caller talks to the engine, which
 * runs the call through the OpenAI Realtime adapter against the protocol-faithful fake (its energy VAD takes
 * the caller's turns; its answers are tones as long as their text).
 */
type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;
let fake: FakeRealtimeServer | undefined;

beforeEach(() => {
  harness = undefined;
  fake = undefined;
});
afterEach(async () => {
  await harness?.close();
  await fake?.close();
});

async function startRealtime(options: HarnessOptions = {}, fakeOptions: FakeRealtimeOptions = {}): Promise<{ harness: Harness; fake: FakeRealtimeServer }> {
  fake = await startFakeRealtimeServer({ speedUp: 4, ...fakeOptions });
  harness = await startVoiceHarness({
    ...options,
    settings: { mode: 'multimodal', voiceId: 'marin', ...options.settings },
    realtime: new OpenAiRealtimeModel({ url: fake.url, apiKey: 'test-realtime-key' }),
  });
  return { harness, fake };
}

describe('a multimodal call through the realtime model', { timeout: 15_000 }, () => {
  it('tells the model the assistant\'s language: its transcription and its instructions', async () => {
    const { harness, fake } = await startRealtime({ settings: { sttLanguage: 'de-DE', ttsLanguage: 'de-DE' } });
    fake.script({ reply: { say: 'Hallo Anna, wie kann ich helfen?' } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    await call.client.waitFor(() => call.turns.length === 1, 5000, 'the greeting');
    expect(session.config).toMatchObject({
      instructions: 'You are the receptionist of Trattoria Roma.\n\nSpeak German with the caller.',
      audio: { input: { transcription: { language: 'de' } } },
    });
  });

  it('greets with the initial message, holds a two-turn exchange, and reports each turn with what was heard', async () => {
    const { harness, fake } = await startRealtime();
    fake.script(
      { reply: { say: 'Hello Anna, how can I help?' } },
      { heard: UTTERANCES.hours.text, reply: { say: 'We open at nine every day.' } },
      { heard: UTTERANCES.book.text, reply: { say: 'Your table is booked.' } },
    );
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    await call.client.waitFor(() => call.turns.length === 1, 5000, 'the greeting');
    expect(call.answeredAt).toBeInstanceOf(Date);
    expect(session.model).toBe('test-realtime-model');
    expect(session.config).toMatchObject({
      instructions: 'You are the receptionist of Trattoria Roma.',
      audio: { input: { transcription: { language: 'en' }, turn_detection: { interrupt_response: true } }, output: { voice: 'marin' } },
    });
    expect(session.config.tools.map((tool: { name: string }) => tool.name)).toEqual(['end_call']);
    expect(session.responseRequests[0]!.instructions).toContain('"Hello Anna, how can I help?"');

    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the first answer');
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 5, 5000, 'the second answer');
    expect(roles(call)).toEqual([
      'assistant: Hello Anna, how can I help?',
      `user: ${UTTERANCES.hours.text}`,
      'assistant: We open at nine every day.',
      `user: ${UTTERANCES.book.text}`,
      'assistant: Your table is booked.',
    ]);
    expect(call.turns.every((turn) => !turn.interrupted)).toBe(true);
    const answer = call.turns[2]!;
    expect(answer.metrics.end_of_speech_to_first_audio_ms).toBeGreaterThan(0);
    expect(answer.metrics.end_of_speech_to_first_audio_ms).toBeLessThan(1000);
    // The caller heard the answers: about as much sound as the fake spoke (20 ms per character), at 16 kHz.
    const spokenMs = ['Hello Anna, how can I help?', 'We open at nine every day.', 'Your table is booked.'].join('').length * 20;
    expect(call.client.playedSound.length * 20).toBeGreaterThan(spokenMs * 0.8);
    expect(call.client.received.filter((message) => message.event === 'mark')).toHaveLength(3);
    expect(session.received).not.toContain('response.cancel');
  });

  it('stops within 200 ms when the caller barges in, cancels the answer, and truncates it at what was played', async () => {
    const { harness, fake } = await startRealtime({ settings: { waitForCustomer: true } }, { speedUp: 1 });
    const long = 'Our menu has many dishes. There is pasta with tomato and basil. There is pizza from the wood oven. There are salads and soups.';
    fake.script({ heard: UTTERANCES.hours.text, reply: { say: long } }, { heard: UTTERANCES.stop.text, reply: { say: 'Sure, go ahead.' } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(MULAW_8K);
    const session = await sessionOpened;
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 40, 5000, 'the answer to be playing');
    expect((await call.running).state()).toBe('speaking');
    const playedBefore = call.client.playedSound.length;
    const onset = await say(call, 'stop', 500);
    const clear = call.client.received.find((message) => message.event === 'clear');
    expect(clear).toBeDefined();
    expect(clear!.at - onset).toBeLessThan(200);
    await call.client.waitFor(() => call.turns.length === 4, 5000, 'the answer to the interruption');
    expect(session.cancellations).toHaveLength(1);
    expect(session.truncations).toHaveLength(1);
    const cut = call.turns[1]!;
    expect(cut).toMatchObject({ role: 'assistant', interrupted: true });
    expect(long.startsWith(cut.text)).toBe(true);
    expect(cut.text.length).toBeGreaterThan(0);
    expect(cut.text.length).toBeLessThan(long.length);
    // The model keeps as much of its answer as the caller's speaker played, give or take the lead and a frame or two.
    const playedMs = (playedBefore + Math.round((clear!.at - onset) / 20)) * 20;
    expect(Math.abs(session.truncations[0]!.audioEndMs - playedMs)).toBeLessThan(250);
    expect(roles(call).slice(2)).toEqual([`user: ${UTTERANCES.stop.text}`, 'assistant: Sure, go ahead.']);
    const soundAfter = call.client.playedSound.filter((at) => at > clear!.at + 120 && at < clear!.at + 300);
    expect(soundAfter).toHaveLength(0);
  });

  it('goes on speaking over the caller when interruptions are off', async () => {
    const { harness, fake } = await startRealtime({ settings: { waitForCustomer: true, allowInterruptions: false } }, { speedUp: 1 });
    const reply = 'Let me tell you about our menu. We have pasta and pizza. We have salads and soups.';
    fake.script({ heard: UTTERANCES.hours.text, reply: { say: reply } }, { heard: UTTERANCES.stop.text, reply: { say: 'Unheard.' } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(MULAW_8K);
    const session = await sessionOpened;
    await call.client.waitFor(() => call.answeredAt !== undefined, 3000, 'the session to be configured');
    expect(session.config.audio.input.turn_detection.interrupt_response).toBe(false);
    await say(call, 'hours');
    await call.client.waitFor(() => call.client.playedSound.length > 20, 5000, 'the answer to be playing');
    await say(call, 'stop', 400);
    await call.client.waitFor(() => call.turns.some((turn) => turn.role === 'assistant'), 8000, 'the answer to finish');
    expect(call.client.received.some((message) => message.event === 'clear')).toBe(false);
    expect(session.cancellations).toHaveLength(0);
    expect(session.truncations).toHaveLength(0);
    expect(call.turns.find((turn) => turn.role === 'assistant')).toMatchObject({ text: reply, interrupted: false });
  });

  it('runs a knowledge search the model asks for and speaks about its result', async () => {
    const queries: string[] = [];
    const { harness, fake } = await startRealtime({
      settings: { waitForCustomer: true },
      profile: { knowledgebaseId: 7 },
      searchKnowledge: (query) => {
        queries.push(query);
        return Promise.resolve([{ documentName: 'hours.txt', text: 'We open at nine.', score: 1 }]);
      },
    });
    fake.script({ heard: UTTERANCES.hours.text, reply: { call: { name: 'search_knowledge_base', arguments: { query: 'opening hours' } }, then: 'We open at nine.' } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    await call.client.waitFor(() => call.answeredAt !== undefined, 3000, 'the session to be configured');
    expect(session.config.tools.map((tool: { name: string }) => tool.name)).toEqual(['search_knowledge_base', 'end_call']);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
    expect(queries).toEqual(['opening hours']);
    expect(session.functionOutputs).toHaveLength(1);
    expect(JSON.parse(session.functionOutputs[0]!.output)).toEqual({ passages: [{ source: 'hours.txt', text: 'We open at nine.' }] });
    expect(roles(call)).toEqual([`user: ${UTTERANCES.hours.text}`, 'assistant: We open at nine.']);
    // The answer about the result was asked for once, after the result was in the model's history.
    expect(session.received.filter((type) => type === 'conversation.item.create' || type === 'response.create')).toEqual(['conversation.item.create', 'response.create']);
  });

  it('calls the assistant\'s HTTP tool with the model\'s arguments and speaks about its answer', async () => {
    const requests: { url: string; key: string | undefined }[] = [];
    const api = http.createServer((request, response) => {
      requests.push({ url: request.url ?? '', key: request.headers['x-api-key'] as string | undefined });
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ opens: '09:00' }));
    });
    const { url, close } = await listenOnLoopback(api);
    try {
      const { harness, fake } = await startRealtime({
        settings: { waitForCustomer: true },
        fetch: createSafeFetch({ allowHosts: ['127.0.0.1'], timeoutMs: 2000, maxBytes: 65_536, userAgent: 'parley-test' }),
        profile: {
          httpTools: [{
            name: 'get_hours', description: 'Opening hours of a day', endpoint: `${url}/hours`, method: 'GET', timeoutSeconds: 2,
            headers: [{ name: 'x-api-key', value: 'tool-secret' }], parameters: [{ name: 'day', type: 'string', description: 'The day' }],
          }],
        },
      });
      fake.script({ heard: UTTERANCES.hours.text, reply: { call: { name: 'get_hours', arguments: { day: 'monday' } }, then: 'We open at nine on Monday.' } });
      const sessionOpened = fake.nextSession();
      const call = await harness.call(L16_16K);
      const session = await sessionOpened;
      await say(call, 'hours');
      await call.client.waitFor(() => call.turns.length === 2, 5000, 'the answer');
      expect(requests).toEqual([{ url: '/hours?day=monday', key: 'tool-secret' }]);
      expect(session.functionOutputs.map((output) => JSON.parse(output.output))).toEqual([{ opens: '09:00' }]);
      expect(roles(call)).toEqual([`user: ${UTTERANCES.hours.text}`, 'assistant: We open at nine on Monday.']);
    } finally {
      await close();
    }
  });

  it('re-engages a silent caller, and ends the call politely once the silence lasts too long', async () => {
    const { harness, fake } = await startRealtime({ settings: { waitForCustomer: true, reengagementMs: 400, maxSilenceMs: 1500 } });
    fake.script({ reply: { say: 'Are you still there?' } }, { reply: { say: 'Hello?' } }, { reply: { say: GOODBYES.silence_timeout } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    expect(await call.ended).toBe('silence_timeout');
    expect(session.responseRequests[0]!.instructions).toBe(REENGAGE_INSTRUCTION);
    expect(session.responseRequests.at(-1)!.instructions).toContain(GOODBYES.silence_timeout);
    expect(roles(call)[0]).toBe('assistant: Are you still there?');
    expect(roles(call).at(-1)).toBe(`assistant: ${GOODBYES.silence_timeout}`);
  });

  it('ends the call on the model\'s end-call once its closing words were heard', async () => {
    const { harness, fake } = await startRealtime({ settings: { waitForCustomer: true } });
    fake.script({ heard: UTTERANCES.bye.text, reply: { call: { name: 'end_call', arguments: {} }, then: 'Goodbye, have a nice day.' } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    await say(call, 'bye');
    expect(await call.ended).toBe('assistant_end_call');
    expect((await call.client.closed).code).toBe(1000);
    await session.closed;
    expect(session.functionOutputs).toHaveLength(1);
    expect(roles(call)).toEqual([`user: ${UTTERANCES.bye.text}`, 'assistant: Goodbye, have a nice day.']);
    // The closing words played to their end before the stream closed.
    expect(call.client.echoed).toHaveLength(1);
  });

  it('says goodbye and ends at the time limit', async () => {
    const { harness, fake } = await startRealtime({ settings: { waitForCustomer: true }, maxSeconds: 1 });
    fake.script({ reply: { say: GOODBYES.max_duration } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    expect(await call.ended).toBe('max_duration');
    expect(session.responseRequests[0]!.instructions).toContain(GOODBYES.max_duration);
    expect(roles(call)).toEqual([`assistant: ${GOODBYES.max_duration}`]);
  });

  it('tells the caller the balance has run out when the balance set the time limit', async () => {
    const { harness, fake } = await startRealtime({ settings: { waitForCustomer: true }, maxSeconds: 1, limitReason: 'balance_exhausted' });
    fake.script({ reply: { say: GOODBYES.balance_exhausted } });
    const sessionOpened = fake.nextSession();
    const call = await harness.call(L16_16K);
    const session = await sessionOpened;
    expect(await call.ended).toBe('balance_exhausted');
    expect(session.responseRequests[0]!.instructions).toContain(GOODBYES.balance_exhausted);
  });

  it('refuses the call with provider_unavailable when no realtime model is configured', async () => {
    harness = await startVoiceHarness({ settings: { mode: 'multimodal' } });
    const call = await harness.call(L16_16K);
    const closed = await call.client.closed;
    expect(closed.code).toBe(1013);
    expect(closed.reason).toContain('speech-to-speech');
    expect(await call.ended).toBe('error');
    expect(call.answeredAt).toBeUndefined();
  });
});
