import { afterEach, describe, expect, it } from 'vitest';
import { InsufficientBalanceError } from '../../src/lib/errors.ts';
import { GOODBYES } from '../../src/voice/session.ts';
import { L16_16K, MULAW_8K } from '../support/media-stream-client.ts';
import { recordedWav, roles, say, startVoiceHarness, type HarnessCall } from '../support/voice-harness.ts';

type Harness = Awaited<ReturnType<typeof startVoiceHarness>>;
let harness: Harness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a call session over Media Streams', { timeout: 15_000 }, () => {
  it('greets first with the initial message, its variables filled, then answers the caller', async () => {
    harness = await startVoiceHarness();
    harness.llm.script({ text: 'We are open from nine to five.' });
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.turns.length === 1, 5000, 'the greeting');
    expect(call.answeredAt).toBeInstanceOf(Date);
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
    expect(metrics.end_of_speech_to_first_audio_ms).toBeGreaterThan(0);
    expect(metrics.llm_first_token_ms).toBeGreaterThanOrEqual(0);
    expect(metrics.tts_first_byte_ms).toBeGreaterThanOrEqual(0);
    expect(metrics.stt_final_delay_ms).toBeGreaterThanOrEqual(0);
    expect(call.turns[1]!.metrics).toEqual({});
    // Each instant as a date and as whole milliseconds from the answer the hooks were told of.
    const answeredAt = call.answeredAt!.getTime();
    for (const turn of call.turns) {
      expect(turn.started_at).toBe(new Date(answeredAt + turn.start_offset_ms).toISOString());
      expect(turn.ended_at).toBe(new Date(answeredAt + turn.end_offset_ms).toISOString());
      expect(Number.isInteger(turn.start_offset_ms) && turn.end_offset_ms >= turn.start_offset_ms).toBe(true);
    }
  });

  it('waits for the customer to speak first when told to, and speaks at the speed, voice and language set', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, speechSpeed: 1.2, voiceId: 'de-voice', ttsLanguage: 'de-DE', sttLanguage: 'de-DE' } });
    harness.llm.script({ text: 'Of course, for what time?' });
    const call = await harness.call(MULAW_8K);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect((await call.running).state()).toBe('listening');
    expect(call.client.received.filter((message) => message.event === 'media')).toHaveLength(0);
    expect(harness.tts.requests).toHaveLength(0);
    await say(call, 'book');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the reply');
    expect(roles(call)).toEqual(['user: Please book a table for two tonight.', 'assistant: Of course, for what time?']);
    // The reply's first clause is spoken on its own, as soon as it is complete.
    expect(harness.tts.requests.map((request) => request.text)).toEqual(['Of course,', 'for what time?']);
    expect(harness.tts.requests[0]).toMatchObject({ speed: 1.2, voice: 'de-voice', language: 'de-DE' });
    expect(harness.stt.languages).toEqual(['de-DE']);
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
    for (const turn of call.turns.filter((t) => t.role === 'assistant')) expect(turn.metrics.end_of_speech_to_first_audio_ms).toBeGreaterThan(0);
  });

  it('waits for a slow recognizer\'s words however long it takes, rather than dropping the turn', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true }, sttDelayMs: 2600 });
    harness.llm.script({ text: 'We open at nine.' });
    const call = await harness.call(L16_16K);
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 2, 8000, 'the reply');
    expect(roles(call)).toEqual(['user: What are your opening hours?', 'assistant: We open at nine.']);
    expect(call.turns[1]!.metrics.stt_final_delay_ms).toBeGreaterThan(2500);
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

  it('ignores events the protocol does not have, and closes with 1002 on a malformed message', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    harness.llm.script({ text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    call.client.sendRaw({ event: 'heartbeat', sequenceNumber: '5', streamSid: call.client.streamSid });
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 2, 5000, 'the reply');
    call.client.sendRaw({ event: 'media', sequenceNumber: '6', streamSid: call.client.streamSid, media: { track: 'inbound' } });
    const closed = await call.client.closed;
    expect(closed.code).toBe(1002);
    expect(closed.reason).toMatch(/media\.chunk/);
    expect(await call.ended).toBe('error');
  });

  it('ends the session the moment it closes the stream on a malformed message, though the caller never answers the close', async () => {
    harness = await startVoiceHarness();
    const call = await harness.call(MULAW_8K);
    await call.client.waitFor(() => call.turns.length === 1, 5000, 'the greeting');
    call.client.stopReading();
    const brokeAt = Date.now();
    call.client.sendRaw({ event: 'media', sequenceNumber: '6', streamSid: call.client.streamSid, media: { track: 'inbound' } });
    expect(await call.ended).toBe('error');
    // At once, not when `ws` gives up on the closing handshake (30 s) or the silence ends the call.
    expect(Date.now() - brokeAt).toBeLessThan(1000);
    // The socket itself is cut soon after, so it holds nothing on the gateway either.
    expect((await call.client.closed).code).toBe(1006);
  });

  it('ends as a customer hang-up on stop', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    const call = await harness.call(L16_16K);
    await new Promise((resolve) => setTimeout(resolve, 100));
    call.client.stop();
    expect(await call.ended).toBe('customer_hangup');
    expect((await call.client.closed).code).toBe(1000);
  });

  it('hangs up on request from outside with the words it is given', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true } });
    const call = await harness.call(MULAW_8K);
    await call.start;
    await new Promise((resolve) => setTimeout(resolve, 100));
    await (await call.running).hangUp('balance_exhausted', GOODBYES.balance_exhausted);
    expect(await call.ended).toBe('balance_exhausted');
    expect(call.turns.map((turn) => turn.text)).toEqual([GOODBYES.balance_exhausted]);
  });

  it('records both sides into one WAV as long as the call', async () => {
    harness = await startVoiceHarness({ settings: { record: true, ambientSound: 'cafe', ambientVolume: 0.5 } });
    harness.llm.script({ text: 'We open at nine.' });
    const call = await harness.call(MULAW_8K);
    const started = performance.now();
    await call.client.waitFor(() => call.turns.length === 1, 5000, 'the greeting');
    await say(call, 'hours');
    await call.client.waitFor(() => call.turns.length === 3, 5000, 'the reply');
    call.client.stop();
    await call.ended;
    const seconds = (performance.now() - started) / 1000;
    const wav = recordedWav(call);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 16)).toBe('WAVEfmt ');
    expect(wav.readUInt16LE(22)).toBe(1);
    expect(wav.readUInt32LE(24)).toBe(16000);
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(wav.readUInt32LE(40)).toBe(wav.length - 44);
    const recordedSeconds = (wav.length - 44) / 32000;
    expect(Math.abs(recordedSeconds - seconds)).toBeLessThan(0.3);
    // The caller's tone and the assistant's are both in the mix.
    const samples = new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) / 2);
    expect(Math.max(...samples.subarray(0, samples.length))).toBeGreaterThan(5000);
  });

  it('mixes the ambient sound into outbound audio, during silence too', async () => {
    harness = await startVoiceHarness({ settings: { waitForCustomer: true, ambientSound: 'office', ambientVolume: 1 } });
    const call = await harness.call(L16_16K);
    await call.client.waitFor(() => call.client.received.filter((message) => message.event === 'media').length >= 25, 3000, 'ambient frames');
    expect(harness.tts.requests).toHaveLength(0);
    expect(call.client.playedSound.length).toBeGreaterThan(5);
  });

  it('takes the turn from a streaming recognizer that hears every frame; the ai check answers a finished question sooner', async () => {
    const gaps: Record<string, number> = {};
    for (const endpointType of ['ai', 'vad'] as const) {
      harness = await startVoiceHarness({ streamingStt: true, settings: { waitForCustomer: true, endpointType, endpointSensitivity: 0.5 } });
      harness.llm.script({ text: 'We open at nine.' });
      const call = await harness.call(MULAW_8K);
      await say(call, 'hours');
      await call.client.waitFor(() => call.turns.length === 2, 5000, 'the reply');
      expect(roles(call)).toEqual(['user: What are your opening hours?', 'assistant: We open at nine.']);
      expect(harness.streaming.frames).toBeGreaterThan(30);
      // From the end of the caller's speech to the start of the reply: the end-of-turn silence.
      gaps[endpointType] = call.turns[1]!.start_offset_ms - call.turns[0]!.end_offset_ms;
      await harness.close();
      harness = undefined;
    }
    // 386 ms for a finished question under ai, 771 ms under vad (turns/endpointing.ts): never sooner, and a busy
    // machine delays both alike, so ai is the sooner of the two.
    expect(gaps.ai).toBeGreaterThanOrEqual(370);
    expect(gaps.vad).toBeGreaterThanOrEqual(755);
    expect(gaps.ai).toBeLessThan(gaps.vad!);
  });

  it('closes with 1003 when start announces audio Parley does not speak', async () => {
    harness = await startVoiceHarness();
    const call = await harness.call({ encoding: 'audio/x-alaw', sampleRate: 8000, channels: 1 } as unknown as typeof MULAW_8K);
    const closed = await call.client.closed;
    expect(closed.code).toBe(1003);
    expect(closed.reason).toMatch(/Unsupported media format/);
    expect(await call.ended).toBe('error');
    expect(call.answeredAt).toBeUndefined();
  });

  it('closes with the close code of the error when the call cannot be set up', async () => {
    harness = await startVoiceHarness({ loadError: new InsufficientBalanceError() });
    const call = await harness.call(MULAW_8K, { callId: '42' });
    expect((await call.start).customParameters).toEqual({ callId: '42' });
    expect(await call.client.closed).toEqual({ code: 4402, reason: 'Insufficient balance. Please top up your account.' });
    expect(await call.ended).toBe('error');
    expect(call.answeredAt).toBeUndefined();
  });
});
