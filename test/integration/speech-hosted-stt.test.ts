import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeepgramSpeechToText, type DeepgramOptions } from '../../src/providers/stt/deepgram.ts';
import { OpenAiSpeechToText } from '../../src/providers/stt/openai-transcription.ts';
import { SpeechProviderError, type TranscriptEvent, type TranscriptionStream } from '../../src/providers/stt/types.ts';
import { startFakeDeepgramServer, type FakeDeepgramServer } from '../fakes/deepgram-server.ts';
import { startFakeSpeechServer, tone, type FakeSpeechServer } from '../fakes/speech-server.ts';
import { freePort } from '../support/ports.ts';

const RATE = 16_000;
const FRAME = 320; // 20 ms

/** Frames of 20 ms: `ms` of silence or of a loud tone. */
function frames(kind: 'silence' | 'speech', ms: number): Int16Array[] {
  const all = kind === 'speech' ? tone(RATE, ms) : new Int16Array((RATE * ms) / 1000);
  const out: Int16Array[] = [];
  for (let offset = 0; offset < all.length; offset += FRAME) out.push(all.subarray(offset, offset + FRAME));
  return out;
}

function play(stream: TranscriptionStream, ...parts: [kind: 'silence' | 'speech', ms: number][]): void {
  for (const [kind, ms] of parts) for (const frame of frames(kind, ms)) stream.write(frame);
}

/** Events until the stream ends; or, with `until`, up to the first event it accepts, leaving the stream open. */
async function collect(stream: TranscriptionStream, until?: (event: TranscriptEvent) => boolean): Promise<TranscriptEvent[]> {
  const events: TranscriptEvent[] = [];
  const iterator = stream.events[Symbol.asyncIterator]();
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    events.push(next.value);
    if (until?.(next.value)) break;
  }
  return events;
}

async function failure(promise: Promise<unknown>): Promise<SpeechProviderError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(SpeechProviderError);
  return error as SpeechProviderError;
}

function capturingLogger() {
  const lines: { msg: string; droppedFrames?: number }[] = [];
  const logger = pino({ level: 'debug' }, new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()));
      done();
    },
  }));
  return { logger, lines };
}

describe('DeepgramSpeechToText', () => {
  let fake: FakeDeepgramServer;
  beforeAll(async () => {
    fake = await startFakeDeepgramServer();
  });
  afterAll(() => fake.close());

  const open = (options: Partial<DeepgramOptions> = {}, signal = new AbortController().signal, language = 'en-US') => {
    const stt = new DeepgramSpeechToText({ url: fake.url, apiKey: fake.apiKey, model: 'nova-2', logger: pino({ level: 'silent' }), ...options });
    return stt.open({ language, sampleRate: RATE, signal });
  };

  it('connects with the Token key and the live query, and maps partials, the final and one utterance end', async () => {
    fake.script({ text: 'I would like a table for two.', confidence: 0.93 });
    const stream = open();
    const connection = await fake.nextConnection();
    play(stream, ['silence', 100], ['speech', 600], ['silence', 1200]);
    const events = await collect(stream, (event) => event.type === 'utterance_end');

    expect(connection.headers.authorization).toBe(`Token ${fake.apiKey}`);
    expect(Object.fromEntries(connection.query)).toMatchObject({
      encoding: 'linear16', sample_rate: '16000', channels: '1', language: 'en-US', model: 'nova-2',
      interim_results: 'true', endpointing: '300', utterance_end_ms: '1000', vad_events: 'true',
    });
    const partials = events.filter((event) => event.type === 'partial');
    expect(partials.length).toBeGreaterThan(0);
    expect(events.slice(partials.length)).toEqual([
      { type: 'final', text: 'I would like a table for two.', confidence: 0.93 },
      { type: 'utterance_end' },
    ]);
    // Deepgram ends the utterance twice (speech_final, then UtteranceEnd a second later in audio time, which
    // on a busy machine may still be on its way); the engine hears it once: nothing more comes before the end.
    expect(connection.sent.some((message) => message.speech_final === true)).toBe(true);
    await vi.waitFor(() => expect(connection.sent.filter((message) => message.type === 'UtteranceEnd')).toHaveLength(1));

    stream.close();
    expect(await collect(stream)).toEqual([]);
    expect(await connection.closed).toBe(1000);
    expect(connection.controls).toEqual(['CloseStream']);
    expect(connection.sent.at(-1)).toMatchObject({ type: 'Metadata', duration: 1.9, channels: 1 });
  });

  it('listens in the assistant\'s language', async () => {
    fake.script({ text: 'Einen Tisch für zwei, bitte.' });
    const stream = open({}, new AbortController().signal, 'de-DE');
    const connection = await fake.nextConnection();
    expect(connection.query.get('language')).toBe('de-DE');
    play(stream, ['speech', 400], ['silence', 1200]);
    stream.close();
    expect((await collect(stream)).filter((event) => event.type === 'final')).toEqual([{ type: 'final', text: 'Einen Tisch für zwei, bitte.', confidence: 0.98 }]);
  });

  it('answers as late as the fake is told to (the provider delay a benchmark fixes)', async () => {
    fake.resultDelayMs = 150;
    try {
      fake.script({ text: 'Later.' });
      const stream = open();
      await fake.nextConnection();
      const written = performance.now();
      play(stream, ['speech', 300], ['silence', 400]);
      const [first] = await collect(stream, () => true);
      expect(first?.type).toBe('partial');
      expect(performance.now() - written).toBeGreaterThanOrEqual(145);
      stream.close();
    } finally {
      fake.resultDelayMs = 0;
    }
  });

  it('gives no words for noise shorter than the utterance, and the words for the speech after it', async () => {
    fake.script({ text: 'Yes please.', minSpeechMs: 300 });
    const stream = open();
    await fake.nextConnection();
    play(stream, ['speech', 100], ['silence', 400], ['speech', 400], ['silence', 400]);
    stream.close();
    const events = await collect(stream);
    expect(events.filter((event) => event.type !== 'partial')).toEqual([{ type: 'final', text: 'Yes please.', confidence: 0.98 }, { type: 'utterance_end' }]);
  });

  it('keeps an idle stream open with KeepAlive messages', async () => {
    const quiet = await startFakeDeepgramServer({ idleTimeoutMs: 400 });
    try {
      const stream = new DeepgramSpeechToText({ url: quiet.url, apiKey: quiet.apiKey, model: 'nova-2', logger: pino({ level: 'silent' }), keepAliveMs: 50 })
        .open({ language: 'en-US', sampleRate: RATE, signal: new AbortController().signal });
      const connection = await quiet.nextConnection();
      // Idle for twice the fake's timeout.
      await new Promise((resolve) => setTimeout(resolve, 800));
      expect(connection.controls.filter((type) => type === 'KeepAlive').length).toBeGreaterThanOrEqual(5);
      stream.close();
      expect(await collect(stream)).toEqual([]);
      expect(await connection.closed).toBe(1000);
    } finally {
      await quiet.close();
    }
  });

  it('fails with a retryable error when Deepgram closes an idle stream (1011), and a non-retryable one for undecodable audio (1008)', async () => {
    const quiet = await startFakeDeepgramServer({ idleTimeoutMs: 100 });
    try {
      const stream = new DeepgramSpeechToText({ url: quiet.url, apiKey: quiet.apiKey, model: 'nova-2', logger: pino({ level: 'silent' }), keepAliveMs: 10_000 })
        .open({ language: 'en-US', sampleRate: RATE, signal: new AbortController().signal });
      const timedOut = await failure(collect(stream));
      expect(timedOut.retryable).toBe(true);
      expect(timedOut.message).toMatch(/^deepgram closed the stream \(1011 NET-0001/);
    } finally {
      await quiet.close();
    }
    const stream = open();
    const connection = await fake.nextConnection();
    connection.closeWith(1008, 'DATA-0000: the audio could not be decoded');
    const undecodable = await failure(collect(stream));
    expect(undecodable.retryable).toBe(false);
  });

  it('fails with a non-retryable error when the key is refused, and a retryable one when Deepgram is unavailable', async () => {
    const refused = new DeepgramSpeechToText({ url: fake.url, apiKey: 'wrong-secret', model: 'nova-2', logger: pino({ level: 'silent' }) })
      .open({ language: 'en-US', sampleRate: RATE, signal: new AbortController().signal });
    const error = await failure(collect(refused));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('deepgram refused the credentials (401)');

    fake.refuseNext(503);
    expect((await failure(collect(open()))).retryable).toBe(true);

    const unreachable = new DeepgramSpeechToText({ url: `ws://127.0.0.1:${await freePort()}`, apiKey: 'k', model: 'nova-2', logger: pino({ level: 'silent' }) })
      .open({ language: 'en-US', sampleRate: RATE, signal: new AbortController().signal });
    expect((await failure(collect(unreachable))).retryable).toBe(true);
  });

  it('says why Deepgram refused the query', async () => {
    const stream = new DeepgramSpeechToText({ url: fake.url, apiKey: fake.apiKey, model: 'nova-2', logger: pino({ level: 'silent' }), endpointingMs: 300 })
      .open({ language: 'en-US', sampleRate: 4000, signal: new AbortController().signal });
    const error = await failure(collect(stream));
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('deepgram answered 400: sample_rate is required for raw audio encodings');
  });

  it('stops at once when aborted mid-stream: events end quietly and the connection closes', async () => {
    fake.script({ text: 'This will be cut off.' });
    const controller = new AbortController();
    const stream = open({}, controller.signal);
    const connection = await fake.nextConnection();
    play(stream, ['speech', 600]);
    const events = stream.events[Symbol.asyncIterator]();
    expect((await events.next()).value).toMatchObject({ type: 'partial' });
    const abortedAt = performance.now();
    controller.abort();
    expect(await events.next()).toEqual({ done: true, value: undefined });
    expect(await connection.closed).toBe(1006);
    expect(performance.now() - abortedAt).toBeLessThan(500);
    stream.write(frames('speech', 20)[0]!);
  });

  it('drops audio beyond its buffer with one warning, and says when it caught up', async () => {
    const { logger, lines } = capturingLogger();
    const stream = open({ logger, maxBufferedBytes: 1000 });
    // Written before the socket opens: one 640-byte frame fits the buffer, the other nine are dropped.
    play(stream, ['silence', 200]);
    const connection = await fake.nextConnection();
    // The buffered frame goes out when the socket opens; the next frame then goes straight to the wire.
    await vi.waitFor(() => expect(connection.audioBytes).toBe(640));
    play(stream, ['silence', 20]);
    stream.close();
    await collect(stream);
    expect(connection.audioBytes).toBe(2 * 640);
    expect(lines.map((line) => line.msg)).toEqual(['speech-to-text is falling behind; dropping audio', 'speech-to-text caught up after dropping audio', 'speech-to-text stream summary']);
    expect(lines[1]?.droppedFrames).toBe(9);
  });
});

describe('OpenAiSpeechToText', () => {
  let fake: FakeSpeechServer;
  beforeAll(async () => {
    fake = await startFakeSpeechServer();
  });
  afterAll(() => fake.close());

  const stt = (apiKey?: string, baseUrl?: string) => new OpenAiSpeechToText({ baseUrl: baseUrl ?? fake.openaiBaseUrl, apiKey: apiKey ?? fake.openaiKey, model: 'whisper-1' });
  const options = (signal = new AbortController().signal) => ({ language: 'en-US', sampleRate: RATE, signal });

  it('uploads the utterance as a 16 kHz mono WAV with the model and ISO 639-1 language, and returns the words', async () => {
    fake.script({ text: ' I would like to book an appointment. ' });
    const audio = tone(RATE, 700);
    expect(await stt().transcribe(audio, options())).toEqual({ text: 'I would like to book an appointment.' });
    const sent = fake.requests.at(-1)!;
    expect(sent.headers.authorization).toBe(`Bearer ${fake.openaiKey}`);
    expect(sent.body).toEqual({ model: 'whisper-1', language: 'en', response_format: 'json' });
    expect(sent.audio?.sampleRate).toBe(RATE);
    expect(sent.audio?.samples).toEqual(audio);
  });

  it('tells the service the utterance\'s language as ISO 639-1', async () => {
    fake.script({ text: 'Ich möchte einen Termin.' });
    expect(await stt().transcribe(tone(RATE, 700), { ...options(), language: 'de-DE' })).toEqual({ text: 'Ich möchte einen Termin.' });
    expect(fake.requests.at(-1)?.body.language).toBe('de');
  });

  it('fails with a non-retryable error when the key is refused or the request is bad, and a retryable one on a 5xx', async () => {
    const refused = await failure(stt('wrong-secret').transcribe(tone(RATE, 100), options()));
    expect(refused.retryable).toBe(false);
    expect(refused.message).toBe('openai-stt refused the credentials (401)');
    fake.script({ status: 400, error: 'Audio file is too short.' });
    const bad = await failure(stt().transcribe(tone(RATE, 100), options()));
    expect([bad.retryable, bad.message]).toEqual([false, 'openai-stt answered 400: Audio file is too short.']);
    fake.script({ status: 502, error: 'Bad gateway' });
    expect((await failure(stt().transcribe(tone(RATE, 100), options()))).retryable).toBe(true);
    expect((await failure(stt(undefined, `http://127.0.0.1:${await freePort()}/v1`).transcribe(tone(RATE, 100), options()))).retryable).toBe(true);
  });

  it('stops at once when aborted, and the server sees the request go', async () => {
    fake.firstByteDelayMs = 5000;
    try {
      const controller = new AbortController();
      const aborted = fake.nextAbort();
      const before = fake.requests.length;
      const pending = stt().transcribe(tone(RATE, 300), options(controller.signal));
      // Aborted while the server holds the request, waiting to answer.
      await vi.waitFor(() => expect(fake.requests.length).toBe(before + 1));
      const started = performance.now();
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(performance.now() - started).toBeLessThan(1000);
      await aborted;
    } finally {
      fake.firstByteDelayMs = 0;
    }
  });
});
