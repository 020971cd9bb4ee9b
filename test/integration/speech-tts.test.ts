import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createLogger, type Logger } from '../../src/logger.ts';
import { SpeechProviderError } from '../../src/providers/stt/types.ts';
import { createEspeakTts } from '../../src/providers/tts/espeak.ts';
import { createPiperTts } from '../../src/providers/tts/piper.ts';
import type { TextToSpeech } from '../../src/providers/tts/types.ts';
import { rms, speechDir, speechInstalled } from '../support/speech.ts';

const logger = createLogger({ log: { level: 'silent', pretty: false } });
const sentence = 'Thanks for calling, your appointment is now confirmed for Tuesday at three.';
const longText = Array.from({ length: 8 }, (_, i) => `This is sentence number ${i + 1} of a rather long answer.`).join(' ');

async function collect(tts: TextToSpeech, voice: string, text: string, signal = new AbortController().signal) {
  const speech = tts.synthesize({ text, voice, language: 'en-US', speed: 1, signal });
  const chunks: Int16Array[] = [];
  for await (const chunk of speech.chunks) chunks.push(chunk);
  const audio = new Int16Array(chunks.reduce((sum, chunk) => sum + chunk.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    audio.set(chunk, at);
    at += chunk.length;
  }
  return { sampleRate: speech.sampleRate, chunks, audio, seconds: audio.length / speech.sampleRate };
}

/** Aborts after the first chunk and tells how long the iterator took to end after it, and what came after. */
async function abortAfterFirstChunk(tts: TextToSpeech, voice: string) {
  const abort = new AbortController();
  const speech = tts.synthesize({ text: longText, voice, language: 'en-US', speed: 1, signal: abort.signal });
  let abortedAt = 0;
  let afterAbort = 0;
  for await (const chunk of speech.chunks) {
    if (abortedAt > 0) afterAbort += chunk.length;
    else {
      expect(chunk.length).toBeGreaterThan(0);
      abort.abort();
      abortedAt = performance.now();
    }
  }
  return { endedMs: performance.now() - abortedAt, afterAbort };
}

function expectSpeech(result: Awaited<ReturnType<typeof collect>>, minSeconds: number, maxSeconds: number): void {
  expect(result.sampleRate).toBe(22050);
  expect(result.seconds).toBeGreaterThan(minSeconds);
  expect(result.seconds).toBeLessThan(maxSeconds);
  expect(rms(result.audio)).toBeGreaterThan(500);
}

describe.skipIf(!speechInstalled)('Piper (sherpa-onnx) voices', () => {
  const piper = createPiperTts({ voicesDir: path.join(speechDir, 'piper'), instances: 2, logger });
  afterAll(() => piper.close());

  it('speaks a sentence at 22.05 kHz', async () => {
    expectSpeech(await collect(piper, 'en_US-joe-medium', sentence), 2.5, 7);
  });

  it('streams sentence by sentence, and stops on abort', async () => {
    const full = await collect(piper, 'en_US-joe-medium', 'Sure. I can do that for you.');
    expect(full.chunks.length).toBe(2);
    const { endedMs, afterAbort } = await abortAfterFirstChunk(piper, 'en_US-joe-medium');
    expect(afterAbort).toBe(0);
    expect(endedMs).toBeLessThan(100);
  });

  it('loads its default voice when warmed up, so that a first sentence waits for no load', async () => {
    const loads: unknown[] = [];
    const watched = Object.assign(Object.create(logger) as Logger, {
      info: (fields: unknown, message?: string) => {
        if (message === 'loaded a Piper voice') loads.push(fields);
      },
    });
    const warmed = createPiperTts({ voicesDir: path.join(speechDir, 'piper'), instances: 1, logger: watched });
    try {
      await warmed.warmUp();
      expect(loads).toEqual([{ voice: 'en_US-joe-medium', ms: expect.any(Number) }]);
      expectSpeech(await collect(warmed, 'en_US-joe-medium', sentence), 2.5, 7);
      expect(loads).toHaveLength(1);
    } finally {
      warmed.close();
    }
  });

  it('fails with a SpeechProviderError for a voice that is not installed', async () => {
    await expect(collect(piper, 'en_US-nobody-medium', sentence)).rejects.toThrow(SpeechProviderError);
    await expect(collect(piper, '../etc', sentence)).rejects.toThrow(/not a Piper voice/);
  });
});

describe.skipIf(!speechInstalled)('espeak-ng voices', () => {
  const espeak = createEspeakTts();

  it('speaks a sentence at 22.05 kHz, in a catalog voice', async () => {
    expectSpeech(await collect(espeak, 'en-us+m3', sentence), 2.5, 7);
  });

  it('speaks faster when asked to', async () => {
    const normal = await collect(espeak, 'en-us', sentence);
    const fast = espeak.synthesize({ text: sentence, voice: 'en-us', language: 'en-US', speed: 2, signal: new AbortController().signal });
    let samples = 0;
    for await (const chunk of fast.chunks) samples += chunk.length;
    expect(samples).toBeLessThan(normal.audio.length * 0.7);
  });

  it('stops at once on abort', async () => {
    const { endedMs, afterAbort } = await abortAfterFirstChunk(espeak, 'en-us');
    expect(afterAbort).toBe(0);
    expect(endedMs).toBeLessThan(100);
  });

  it('refuses a voice that is not an espeak-ng voice name, and reads text starting with a dash as text', async () => {
    await expect(collect(espeak, '--help', sentence)).rejects.toThrow(SpeechProviderError);
    expectSpeech(await collect(espeak, 'en-us', '--version please say this'), 1, 5);
  });
});
