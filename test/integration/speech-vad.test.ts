import { describe, expect, it, vi } from 'vitest';
import path from 'node:path';
import { createLogger } from '../../src/logger.ts';
import type { VadEvent } from '../../src/providers/vad/types.ts';
import { createSileroVad } from '../../src/providers/vad/silero.ts';
import { createThreadedSileroVad } from '../../src/providers/vad/threaded.ts';
import { speechDir, speechInstalled, spokenPcm } from '../support/speech.ts';

const frameSamples = 320;
const options = { sampleRate: 16000, threshold: 0.5, minSpeechMs: 250, minSilenceMs: 400 };

/** Pushes `audio` in 20 ms frames, then `trailingMs` of silence, and returns every event with the frame time it came at. */
function run(audio: Int16Array, trailingMs: number, factory = createSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx') })): (VadEvent & { heardAtMs: number })[] {
  const events: (VadEvent & { heardAtMs: number })[] = [];
  let heardAtMs = 0;
  const detector = factory.create(options, (event) => events.push({ ...event, heardAtMs }));
  const total = audio.length + (trailingMs * 16000) / 1000;
  for (let at = 0; at < total; at += frameSamples) {
    const frame = at < audio.length ? audio.subarray(at, at + frameSamples) : new Int16Array(frameSamples);
    heardAtMs = (at + frameSamples) / 16;
    detector.push(frame);
  }
  detector.close();
  return events;
}

describe.skipIf(!speechInstalled)('Silero VAD (sherpa-onnx)', () => {
  it('tells one start and one end around a spoken sentence, with the utterance', async () => {
    // About 3 s of speech between 1 s of silence on each side.
    const audio = await spokenPcm('I would like to book an appointment for Tuesday at three', { silenceMs: 1000 });
    const speechEndMs = audio.length / 16 - 1000;
    const events = run(audio, 1000);
    expect(events.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    const [start, end] = events as [VadEvent & { heardAtMs: number }, VadEvent & { heardAtMs: number }];
    expect(start.atMs).toBeGreaterThan(800);
    expect(start.atMs).toBeLessThan(1300);
    // Sure of it within half a second of the onset.
    expect(start.heardAtMs).toBeLessThan(1600);
    expect(end.atMs).toBeGreaterThan(speechEndMs - 400);
    expect(end.atMs).toBeLessThan(speechEndMs + 300);
    // Said after the minimum silence, not long after.
    expect(end.heardAtMs).toBeGreaterThan(end.atMs + options.minSilenceMs - 100);
    expect(end.heardAtMs).toBeLessThan(end.atMs + options.minSilenceMs + 300);
    if (end.type !== 'speech_end') throw new Error('expected speech_end');
    expect(end.audio.length / 16).toBeGreaterThan(speechEndMs - 1000 - 500);
    expect(end.audio.length / 16).toBeLessThan(speechEndMs - 1000 + 500);
  });

  it('hears the next call from a clean state on a detector closed by the last', async () => {
    const audio = await spokenPcm('Good morning, I need a taxi', { silenceMs: 700 });
    const factory = createSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx') });
    const first = run(audio, 800, factory);
    // Cut off mid-utterance: the next call must not inherit its half-heard speech.
    run(audio.subarray(0, audio.length / 2), 0, factory);
    const again = run(audio, 800, factory);
    expect(first.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    expect(again.map(({ type, atMs, heardAtMs }) => ({ type, atMs, heardAtMs }))).toEqual(first.map(({ type, atMs, heardAtMs }) => ({ type, atMs, heardAtMs })));
  });

  it('stays quiet on silence and on a click shorter than the minimum speech', () => {
    const audio = new Int16Array(16000 * 2);
    for (let i = 16000; i < 16000 + 480; i += 1) audio[i] = i % 2 === 0 ? 12000 : -12000;
    expect(run(audio, 500)).toEqual([]);
  });

  it('takes frames of any length', async () => {
    const audio = await spokenPcm('Hello there', { silenceMs: 600 });
    const events: VadEvent[] = [];
    const detector = createSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx') }).create(options, (event) => events.push(event));
    for (let at = 0; at < audio.length; at += 137) detector.push(audio.subarray(at, at + 137));
    detector.push(new Int16Array(16000));
    expect(events.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    detector.close();
    expect(() => detector.push(new Int16Array(320))).toThrow(/closed/);
  });

  it('keeps stream times across audio dropped unheard (an overloaded thread skips frames)', async () => {
    const audio = await spokenPcm('Good morning, I need a taxi', { silenceMs: 1000 });
    const whole = run(audio, 800).map(({ type, atMs }) => ({ type, atMs }));
    const events: VadEvent[] = [];
    const detector = createSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx') }).create(options, (event) => events.push(event));
    // The first 600 ms of silence never reach the model.
    detector.skip(9600);
    for (let at = 9600; at < audio.length + 800 * 16; at += frameSamples) detector.push(at < audio.length ? audio.subarray(at, at + frameSamples) : new Int16Array(frameSamples));
    detector.close();
    const skipped = events.map(({ type, atMs }) => ({ type, atMs }));
    expect(skipped.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    skipped.forEach((event, index) => expect(Math.abs(event.atMs - (whole[index]?.atMs ?? 0))).toBeLessThanOrEqual(32));
  });

  it('on a worker thread, tells each of several calls what the same detector tells on the calling thread', async () => {
    const spoken = await spokenPcm('I would like to book an appointment', { silenceMs: 700 });
    const silence = new Int16Array(16000);
    const callers = [spoken, Int16Array.from([...silence.subarray(0, 8000), ...spoken]), silence];
    const expected = callers.map((audio) => run(audio, 800).map(({ type, atMs }) => ({ type, atMs })));
    const factory = createThreadedSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx'), threads: 2, logger: createLogger({ log: { level: 'silent', pretty: false } }), maxBacklogMs: 60_000 });
    try {
      const heard: VadEvent[][] = callers.map(() => []);
      const detectors = callers.map((_, index) => factory.create(options, (event) => heard[index]?.push(event)));
      // The calls' frames interleave as the media role's sockets deliver them, a few per turn of the loop.
      const longest = Math.max(...callers.map((audio) => audio.length)) + 800 * 16;
      for (let at = 0; at < longest; at += frameSamples) {
        callers.forEach((audio, index) => {
          const frame = at < audio.length ? audio.subarray(at, at + frameSamples) : new Int16Array(frameSamples);
          if (at < audio.length + 800 * 16) detectors[index]?.push(frame);
        });
        if (at % (frameSamples * 5) === 0) await new Promise((resolve) => setImmediate(resolve));
      }
      await vi.waitFor(() => expect(heard.map((events) => events.length)).toEqual(expected.map((events) => events.length)), { timeout: 5000 });
      expect(heard.map((events) => events.map(({ type, atMs }) => ({ type, atMs })))).toEqual(expected);
      const end = heard[0]?.[1];
      expect(end?.type === 'speech_end' && end.audio.length).toBeGreaterThan(16000);
      // A closed detector hears nothing more, and its thread keeps serving the others.
      detectors[0]?.close();
      for (let at = 0; at < spoken.length + 800 * 16; at += frameSamples) {
        const frame = at < spoken.length ? spoken.subarray(at, at + frameSamples) : new Int16Array(frameSamples);
        detectors[0]?.push(frame);
        detectors[2]?.push(frame);
      }
      await vi.waitFor(() => expect(heard[2]?.map((event) => event.type)).toEqual(['speech_start', 'speech_end']), { timeout: 5000 });
      expect(heard[0]).toHaveLength(2);
    } finally {
      await factory.close?.();
    }
  });
});
