import { describe, expect, it } from 'vitest';
import type { VadEvent } from '../../src/providers/vad/types.ts';
import { createSileroVad } from '../../src/providers/vad/silero.ts';
import { speechDir, speechInstalled, spokenPcm } from '../support/speech.ts';
import path from 'node:path';

const frameSamples = 320;
const options = { sampleRate: 16000, threshold: 0.5, minSpeechMs: 250, minSilenceMs: 400 };

/** Pushes `audio` in 20 ms frames, then `trailingMs` of silence, and returns every event with the frame time it came at. */
function run(audio: Int16Array, trailingMs: number, factory = createSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx') })): (VadEvent & { heardAtMs: number })[] {
  const detector = factory.create(options);
  const events: (VadEvent & { heardAtMs: number })[] = [];
  const total = audio.length + (trailingMs * 16000) / 1000;
  for (let at = 0; at < total; at += frameSamples) {
    const frame = at < audio.length ? audio.subarray(at, at + frameSamples) : new Int16Array(frameSamples);
    for (const event of detector.push(frame)) events.push({ ...event, heardAtMs: (at + frameSamples) / 16 });
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
    const detector = createSileroVad({ modelPath: path.join(speechDir, 'silero_vad.onnx') }).create(options);
    const events: VadEvent[] = [];
    for (let at = 0; at < audio.length; at += 137) events.push(...detector.push(audio.subarray(at, at + 137)));
    events.push(...detector.push(new Int16Array(16000)));
    expect(events.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
    detector.close();
    expect(() => detector.push(new Int16Array(320))).toThrow(/closed/);
  });
});
