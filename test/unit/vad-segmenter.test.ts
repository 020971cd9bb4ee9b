import { describe, expect, it } from 'vitest';
import { SILERO_WINDOW, SpeechSegmenter } from '../../src/providers/vad/segmenter.ts';
import type { VadEvent } from '../../src/providers/vad/types.ts';

const windowMs = 32;
const loud = () => Float32Array.from({ length: SILERO_WINDOW }, (_, i) => 0.3 * Math.sin(i / 3));
const quiet = () => new Float32Array(SILERO_WINDOW);

/** Feeds one probability per 32 ms window (loud audio while >= 0.5); every event with the window index after which it came. */
function feed(probabilities: number[], options = { threshold: 0.5, minSpeechMs: 64, minSilenceMs: 192 }): (VadEvent & { after: number })[] {
  const segmenter = new SpeechSegmenter(options);
  return probabilities.flatMap((p, index) => segmenter.window(p, p >= 0.5 ? loud() : quiet()).map((event) => ({ ...event, after: index })));
}

const run = (value: number, windows: number) => Array<number>(windows).fill(value);

describe('the speech segmenter', () => {
  it('starts speech at its onset once it has lasted the minimum, and ends it after the minimum silence', () => {
    const events = feed([...run(0.1, 10), ...run(0.9, 20), ...run(0.05, 10)]);
    expect(events.map(({ type, atMs, after }) => ({ type, atMs, after }))).toEqual([
      { type: 'speech_start', atMs: 10 * windowMs, after: 11 },
      // The voice ends where the loud windows end; the end is told 192 ms (6 windows) into the silence.
      { type: 'speech_end', atMs: 30 * windowMs, after: 35 },
    ]);
    const end = events[1];
    // The utterance with 6 windows of lead-in before the onset, through the silence that ended it.
    expect(end?.type === 'speech_end' && end.audio.length).toBe((6 + 20 + 6) * SILERO_WINDOW);
  });

  it('ignores speech shorter than the minimum, and starts a new onset after it', () => {
    expect(feed([...run(0.9, 1), ...run(0.1, 5), ...run(0.9, 1), ...run(0.1, 10)])).toEqual([]);
    expect(feed([...run(0.9, 1), ...run(0.1, 5), ...run(0.9, 3), ...run(0.1, 10)]).map(({ type, atMs }) => ({ type, atMs }))).toEqual([
      { type: 'speech_start', atMs: 6 * windowMs },
      { type: 'speech_end', atMs: 9 * windowMs },
    ]);
  });

  it('keeps speaking through probabilities between the two thresholds, and through pauses shorter than the minimum silence', () => {
    const events = feed([...run(0.9, 5), ...run(0.4, 20), ...run(0.9, 3), ...run(0.1, 5), ...run(0.9, 3), ...run(0.1, 8)]);
    expect(events.map((event) => event.type)).toEqual(['speech_start', 'speech_end']);
  });

  it('cuts speech longer than 30 s into utterances, and goes on hearing the caller', () => {
    const windows = Math.ceil(30_000 / windowMs);
    const events = feed([...run(0.9, windows + 50), ...run(0.1, 10)]);
    expect(events.map((event) => event.type)).toEqual(['speech_start', 'speech_end', 'speech_start', 'speech_end']);
    const [, cut, again] = events;
    expect(cut?.atMs).toBeGreaterThanOrEqual(30_000);
    expect(again?.atMs).toBe(cut?.atMs);
  });

  it('counts samples dropped unheard in its times, and ends the speech the gap cut', () => {
    const segmenter = new SpeechSegmenter({ threshold: 0.5, minSpeechMs: 64, minSilenceMs: 192 });
    const before = [0, 1, 2].flatMap(() => segmenter.window(0.9, loud()));
    expect(before.map(({ type, atMs }) => ({ type, atMs }))).toEqual([{ type: 'speech_start', atMs: 0 }]);
    // Whoever heard the start hears the end, at the gap, with the audio heard before it.
    const cut = segmenter.skip(16000);
    expect(cut.map(({ type, atMs }) => ({ type, atMs }))).toEqual([{ type: 'speech_end', atMs: 3 * windowMs }]);
    expect(cut[0]?.type === 'speech_end' && cut[0].audio.length).toBe(3 * SILERO_WINDOW);
    expect(segmenter.skip(16000)).toEqual([]);
    const events = [...run(0.1, 2), ...run(0.9, 4), ...run(0.1, 8)].flatMap((p) => segmenter.window(p, p >= 0.5 ? loud() : quiet()));
    expect(events.map(({ type, atMs }) => ({ type, atMs }))).toEqual([
      { type: 'speech_start', atMs: 3 * windowMs + 2000 + 2 * windowMs },
      { type: 'speech_end', atMs: 3 * windowMs + 2000 + 6 * windowMs },
    ]);
  });
});
