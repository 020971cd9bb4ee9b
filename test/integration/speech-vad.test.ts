import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { SileroStreams } from '../../src/providers/vad/silero-streams.ts';
import { createThreadedSileroVad } from '../../src/providers/vad/threaded.ts';
import type { VadEvent } from '../../src/providers/vad/types.ts';
import { speechDir, speechInstalled, spokenPcm } from '../support/speech.ts';

const frameSamples = 320;
const options = { sampleRate: 16000, threshold: 0.5, minSpeechMs: 250, minSilenceMs: 400 };
const modelPath = path.join(speechDir, 'silero_vad.onnx');
let nextId = 1;

/** Hears `audio` in 20 ms frames, then `trailingMs` of silence, one frame at a time; every event with the frame time it came at. */
async function run(silero: SileroStreams, audio: Int16Array, trailingMs: number, frame = frameSamples): Promise<(VadEvent & { heardAtMs: number })[]> {
  const id = nextId++;
  silero.open(id, options);
  const events: (VadEvent & { heardAtMs: number })[] = [];
  const total = audio.length + (trailingMs * 16000) / 1000;
  for (let at = 0; at < total; at += frame) {
    const samples = at < audio.length ? audio.subarray(at, at + frame) : new Int16Array(frame);
    for (const { event } of await silero.hear([{ id, samples, skipped: 0 }])) events.push({ ...event, heardAtMs: (at + frame) / 16 });
  }
  silero.close(id);
  return events;
}

const timesOf = (events: VadEvent[]) => events.map(({ type, atMs }) => ({ type, atMs }));

describe.skipIf(!speechInstalled)('Silero VAD (onnxruntime, one model for every call)', () => {
  let silero: SileroStreams;
  beforeAll(async () => {
    silero = await SileroStreams.load(modelPath);
  });
  afterAll(async () => {
    await silero.release();
  });

  it('tells one start and one end around a spoken sentence, with the utterance', async () => {
    // About 3 s of speech between 1 s of silence on each side.
    const audio = await spokenPcm('I would like to book an appointment for Tuesday at three', { silenceMs: 1000 });
    const speechEndMs = audio.length / 16 - 1000;
    const events = await run(silero, audio, 1000);
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

  it('hears each call from its own state: one cut off mid-utterance leaves nothing to the next', async () => {
    const audio = await spokenPcm('Good morning, I need a taxi', { silenceMs: 700 });
    const first = await run(silero, audio, 800);
    await run(silero, audio.subarray(0, audio.length / 2), 0);
    const again = await run(silero, audio, 800);
    expect(first.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    expect(again.map(({ type, atMs, heardAtMs }) => ({ type, atMs, heardAtMs }))).toEqual(first.map(({ type, atMs, heardAtMs }) => ({ type, atMs, heardAtMs })));
  });

  it('stays quiet on silence and on a click shorter than the minimum speech', async () => {
    const audio = new Int16Array(16000 * 2);
    for (let i = 16000; i < 16000 + 480; i += 1) audio[i] = i % 2 === 0 ? 12000 : -12000;
    expect(await run(silero, audio, 500)).toEqual([]);
  });

  it('takes frames of any length', async () => {
    const audio = await spokenPcm('Hello there', { silenceMs: 600 });
    expect((await run(silero, audio, 600, 137)).map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
  });

  it('gives each call in a batch what it gives the call alone', async () => {
    const spoken = await spokenPcm('I would like to book an appointment', { silenceMs: 700 });
    const late = Int16Array.from([...new Int16Array(8000), ...spoken]);
    const alone = [timesOf(await run(silero, spoken, 800)), timesOf(await run(silero, late, 800))];
    const ids = [nextId++, nextId++];
    ids.forEach((id) => silero.open(id, options));
    const heard: VadEvent[][] = [[], []];
    const longest = late.length + 800 * 16;
    for (let at = 0; at < longest; at += frameSamples * 3) {
      // Three frames of each call in one batch, as a thread hears them when it runs late.
      const frames = [spoken, late].flatMap((audio, index) => [0, 1, 2].map((k) => ({
        id: ids[index] as number,
        samples: at + k * frameSamples < audio.length ? audio.subarray(at + k * frameSamples, at + (k + 1) * frameSamples) : new Int16Array(frameSamples),
        skipped: 0,
      })));
      for (const { id, event } of await silero.hear(frames)) heard[ids.indexOf(id)]?.push(event);
    }
    ids.forEach((id) => silero.close(id));
    expect(heard.map(timesOf)).toEqual(alone);
  });

  it('keeps stream times across audio dropped unheard (an overloaded thread skips frames)', async () => {
    const audio = await spokenPcm('Good morning, I need a taxi', { silenceMs: 1000 });
    const whole = timesOf(await run(silero, audio, 800));
    const id = nextId++;
    silero.open(id, options);
    const events: VadEvent[] = [];
    // The first 600 ms of silence never reach the model.
    for (let at = 9600; at < audio.length + 800 * 16; at += frameSamples) {
      const samples = at < audio.length ? audio.subarray(at, at + frameSamples) : new Int16Array(frameSamples);
      for (const { event } of await silero.hear([{ id, samples, skipped: at === 9600 ? 9600 : 0 }])) events.push(event);
    }
    silero.close(id);
    expect(events.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    timesOf(events).forEach((event, index) => expect(Math.abs(event.atMs - (whole[index]?.atMs ?? 0))).toBeLessThanOrEqual(32));
  });

  it('on worker threads, tells each of several calls what it tells them here', async () => {
    const spoken = await spokenPcm('I would like to book an appointment', { silenceMs: 700 });
    const silence = new Int16Array(16000);
    const callers = [spoken, Int16Array.from([...silence.subarray(0, 8000), ...spoken]), silence];
    const expected = await Promise.all(callers.map(async (audio) => timesOf(await run(silero, audio, 800))));
    const factory = createThreadedSileroVad({ modelPath, threads: 2, logger: createLogger({ log: { level: 'silent', pretty: false } }), maxBacklogMs: 60_000 });
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
      expect(heard.map(timesOf)).toEqual(expected);
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

  it('on a thread that keeps up, hears a burst of seconds of audio whole: what a caller said while the call loaded is no backlog', async () => {
    const spoken = await spokenPcm('Good morning, I need a taxi', { silenceMs: 300 });
    const audio = Int16Array.from([...spoken, ...new Int16Array(800 * 16)]);
    const expected = timesOf(await run(silero, spoken, 800));
    const factory = createThreadedSileroVad({ modelPath, threads: 1, logger: createLogger({ log: { level: 'silent', pretty: false } }) });
    try {
      // A first call heard to its end: the thread's model has loaded, so from now on a late thread drops frames.
      const first: VadEvent[] = [];
      const warm = factory.create(options, (event) => first.push(event));
      for (let at = 0; at < audio.length; at += frameSamples) warm.push(audio.subarray(at, at + frameSamples));
      await vi.waitFor(() => expect(first.map((event) => event.type)).toEqual(['speech_start', 'speech_end']), { timeout: 10_000 });
      warm.close();
      const heard: VadEvent[] = [];
      const detector = factory.create(options, (event) => heard.push(event));
      for (let at = 0; at < audio.length; at += frameSamples) detector.push(audio.subarray(at, at + frameSamples));
      // Until the thread answers, the audio pushed is unjudged: no pause is longer than what it has heard.
      expect(detector.pendingMs?.()).toBeCloseTo((audio.length / 16000) * 1000, 0);
      await vi.waitFor(() => expect(timesOf(heard)).toEqual(expected), { timeout: 5000 });
      await vi.waitFor(() => expect(detector.pendingMs?.()).toBe(0), { timeout: 5000 });
    } finally {
      await factory.close?.();
    }
  });

  it('on a thread whose model cannot load, says why instead of failing the call silently', async () => {
    const errors: unknown[] = [];
    const logger = createLogger({ log: { level: 'silent', pretty: false } });
    logger.error = ((details: unknown) => { errors.push(details); });
    const factory = createThreadedSileroVad({ modelPath: path.join(speechDir, 'no-such-model.onnx'), threads: 1, logger });
    try {
      const detector = factory.create(options, () => undefined);
      detector.push(new Int16Array(frameSamples));
      await vi.waitFor(() => expect(JSON.stringify(errors)).toContain('no-such-model.onnx'), { timeout: 5000 });
    } finally {
      await factory.close?.();
    }
  });
});
