import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpeechProviderError } from '../../src/providers/stt/types.ts';
import { ElevenLabsTextToSpeech } from '../../src/providers/tts/elevenlabs.ts';
import { OpenAiTextToSpeech } from '../../src/providers/tts/openai-speech.ts';
import type { SynthesisRequest, TextToSpeech } from '../../src/providers/tts/types.ts';
import { startFakeSpeechServer, tone, type FakeSpeechServer } from '../fakes/speech-server.ts';
import { freePort } from '../support/ports.ts';

let fake: FakeSpeechServer;
beforeAll(async () => {
  fake = await startFakeSpeechServer();
});
afterAll(() => fake.close());

function request(overrides: Partial<SynthesisRequest> = {}): SynthesisRequest {
  return { text: 'Hello there.', voice: 'voice-1', language: 'en-US', speed: 1, signal: new AbortController().signal, ...overrides };
}

async function collect(tts: TextToSpeech, synthesis: SynthesisRequest): Promise<{ sampleRate: number; samples: Int16Array; chunks: number }> {
  const speech = tts.synthesize(synthesis);
  const parts: Int16Array[] = [];
  for await (const chunk of speech.chunks) parts.push(chunk);
  const samples = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    samples.set(part, offset);
    offset += part.length;
  }
  return { sampleRate: speech.sampleRate, samples, chunks: parts.length };
}

async function failure(promise: Promise<unknown>): Promise<SpeechProviderError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(SpeechProviderError);
  return error as SpeechProviderError;
}

/** Samples whose bytes include both signs and the extremes, so a misjoined byte shows. */
function knownSamples(count: number): Int16Array {
  return Int16Array.from({ length: count }, (_, i) => (i % 7 === 0 ? -32768 : i % 5 === 0 ? 32767 : ((i * 2654435761) % 65536) - 32768));
}

const providers = [
  {
    name: 'ElevenLabsTextToSpeech',
    rate: 16_000,
    make: (key?: string, url?: string) => new ElevenLabsTextToSpeech({ url: url ?? fake.elevenLabsUrl, apiKey: key ?? fake.elevenLabsKey, model: 'eleven_flash_v2_5' }),
  },
  {
    name: 'OpenAiTextToSpeech',
    rate: 24_000,
    make: (key?: string, url?: string) => new OpenAiTextToSpeech({ baseUrl: url ?? fake.openaiBaseUrl, apiKey: key ?? fake.openaiKey, model: 'gpt-4o-mini-tts' }),
  },
];

describe.each(providers)('$name', ({ rate, make }) => {
  it('streams the provider\'s PCM exactly, whatever the chunk boundaries, at the stated rate', async () => {
    // Paced, each write reaches the client as a chunk of its own: odd sizes split samples across chunks.
    fake.chunkIntervalMs = 2;
    for (const [chunkBytes, count] of [[7, 501], [1023, 4001]] as const) {
      const expected = knownSamples(count);
      fake.chunkBytes = chunkBytes;
      fake.script({ samples: expected });
      const { sampleRate, samples, chunks } = await collect(make(), request());
      expect(sampleRate).toBe(rate);
      expect(samples).toEqual(expected);
      expect(chunks).toBeGreaterThan(1);
    }
    fake.chunkBytes = 1023;
    fake.chunkIntervalMs = 0;
  });

  it('fails with a non-retryable error, without the key in it, when the key is refused', async () => {
    const error = await failure(collect(make('wrong-secret-key'), request()));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/refused the credentials \(401\)/);
    expect(error.message).not.toContain('wrong-secret-key');
  });

  it('fails with a retryable error when the provider fails on its side, and a non-retryable one for a bad request', async () => {
    fake.script({ status: 503, error: 'The server is overloaded.' });
    const busy = await failure(collect(make(), request()));
    expect(busy.retryable).toBe(true);
    expect(busy.message).toMatch(/answered 503: The server is overloaded\./);
    fake.script({ status: 422, error: 'Unprocessable text.' });
    expect((await failure(collect(make(), request()))).retryable).toBe(false);
  });

  it('fails with a retryable error when the provider cannot be reached', async () => {
    const error = await failure(collect(make(undefined, `http://127.0.0.1:${await freePort()}`), request()));
    expect(error.retryable).toBe(true);
  });

  it('stops at once when aborted mid-stream: the iterator ends quietly and the connection closes', async () => {
    fake.chunkIntervalMs = 20;
    fake.script({ samples: tone(rate, 5000) });
    const controller = new AbortController();
    const aborted = fake.nextAbort();
    let received = 0;
    const started = performance.now();
    let stoppedAt = 0;
    const speech = make().synthesize(request({ signal: controller.signal }));
    for await (const chunk of speech.chunks) {
      received += chunk.length;
      if (received > rate / 10) {
        controller.abort();
        stoppedAt = performance.now();
      }
    }
    fake.chunkIntervalMs = 0;
    expect(performance.now() - stoppedAt).toBeLessThan(500);
    expect(received).toBeLessThan(rate * 5);
    await aborted;
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('ends without a request when aborted before it starts', async () => {
    const controller = new AbortController();
    controller.abort();
    const before = fake.requests.length;
    expect((await collect(make(), request({ signal: controller.signal }))).samples.length).toBe(0);
    expect(fake.requests.length).toBe(before);
  });

  it('waits for the fake\'s first byte as long as it is told to', async () => {
    fake.firstByteDelayMs = 150;
    const started = performance.now();
    const speech = make().synthesize(request());
    const iterator = speech.chunks[Symbol.asyncIterator]();
    await iterator.next();
    const firstChunkMs = performance.now() - started;
    await iterator.return?.();
    fake.firstByteDelayMs = 0;
    expect(firstChunkMs).toBeGreaterThanOrEqual(145);
  });
});

describe('ElevenLabsTextToSpeech request', () => {
  it('posts to the voice\'s stream with the key header, raw PCM at 16 kHz, and a speed ElevenLabs accepts', async () => {
    const tts = new ElevenLabsTextToSpeech({ url: `${fake.elevenLabsUrl}/`, apiKey: fake.elevenLabsKey, model: 'eleven_flash_v2_5' });
    await collect(tts, request({ voice: '21m00Tcm4TlvDq8EAJCM', text: 'Fast words.', speed: 2 }));
    await collect(tts, request({ speed: 0.5 }));
    const [fast, slow] = fake.requests.slice(-2);
    expect(fast?.voice).toBe('21m00Tcm4TlvDq8EAJCM');
    expect(fast?.headers['xi-api-key']).toBe(fake.elevenLabsKey);
    expect(fast?.query.get('output_format')).toBe('pcm_16000');
    expect(fast?.body).toEqual({ text: 'Fast words.', model_id: 'eleven_flash_v2_5', voice_settings: { stability: 0.5, similarity_boost: 0.75, speed: 1.2 } });
    expect((slow?.body.voice_settings as { speed: number }).speed).toBe(0.7);
  });

  it('speaks another language than English with a multilingual model, told the language where the model takes it', async () => {
    const flash = new ElevenLabsTextToSpeech({ url: fake.elevenLabsUrl, apiKey: fake.elevenLabsKey, model: 'eleven_flash_v2' });
    expect((await collect(flash, request({ text: 'Guten Tag.', language: 'de-DE' }))).samples.length).toBeGreaterThan(0);
    expect(fake.requests.at(-1)?.body).toMatchObject({ text: 'Guten Tag.', model_id: 'eleven_flash_v2_5', language_code: 'de' });
    await collect(flash, request({ text: 'Hello.', language: 'en-US' }));
    expect(fake.requests.at(-1)?.body.model_id).toBe('eleven_flash_v2');
    expect(fake.requests.at(-1)?.body.language_code).toBeUndefined();
    const monolingual = new ElevenLabsTextToSpeech({ url: fake.elevenLabsUrl, apiKey: fake.elevenLabsKey, model: 'eleven_monolingual_v1' });
    await collect(monolingual, request({ text: 'Buenos días.', language: 'es-ES' }));
    expect(fake.requests.at(-1)?.body).toMatchObject({ model_id: 'eleven_multilingual_v2' });
    expect(fake.requests.at(-1)?.body.language_code).toBeUndefined();
  });
});

describe('OpenAiTextToSpeech request', () => {
  it('posts the model, text, voice, raw PCM and speed with the bearer key', async () => {
    const tts = new OpenAiTextToSpeech({ baseUrl: fake.openaiBaseUrl, apiKey: fake.openaiKey, model: 'tts-1' });
    await collect(tts, request({ voice: 'verse', text: 'Slowly now.', speed: 0.5 }));
    const sent = fake.requests.at(-1);
    expect(sent?.headers.authorization).toBe(`Bearer ${fake.openaiKey}`);
    expect(sent?.body).toEqual({ model: 'tts-1', input: 'Slowly now.', voice: 'verse', response_format: 'pcm', speed: 0.5 });
  });
});
