import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { Resampler } from '../../src/lib/audio/resampler.ts';
import { BeepDetector, type BeepEvent } from '../../src/voice/voicemail/beep.ts';

const RATE = 16000;
const FRAME = 320;

/** A sine of `ms` at `hz`, PCM16 at 16 kHz. */
function sine(hz: number, ms: number, amplitude = 8000): Float64Array {
  return Float64Array.from({ length: (RATE * ms) / 1000 }, (_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / RATE));
}

function silence(ms: number): Float64Array {
  return new Float64Array((RATE * ms) / 1000);
}

/** A deterministic generator, so every run hears the same noise. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1664525 + 1013904223) % 2 ** 32;
    return state / 2 ** 32;
  };
}

function noise(ms: number, amplitude: number, seed = 1): Float64Array {
  const next = random(seed);
  return Float64Array.from({ length: (RATE * ms) / 1000 }, () => amplitude * (next() * 2 - 1));
}

/**
 * Vowel-like speech: a glottal pitch gliding between `fromHz` and `toHz` with every harmonic up to 4 kHz,
 * shaped by three formants (their centres move as between vowels), so energy sits in many harmonics at once.
 */
function voiced(ms: number, fromHz: number, toHz: number, amplitude = 6000): Float64Array {
  const length = (RATE * ms) / 1000;
  const out = new Float64Array(length);
  let phase = 0;
  for (let i = 0; i < length; i++) {
    const progress = i / length;
    const pitch = fromHz + (toHz - fromHz) * progress + 6 * Math.sin(2 * Math.PI * 5 * (i / RATE));
    phase += (2 * Math.PI * pitch) / RATE;
    const formants = [500 + 300 * progress, 1500 - 400 * progress, 2500];
    let sample = 0;
    for (let h = 1; h * pitch < 4000; h++) {
      const frequency = h * pitch;
      const gain = formants.reduce((sum, centre, index) => sum + Math.exp(-(((frequency - centre) / 150) ** 2)) / (index + 1), 0) + 0.05;
      sample += (gain / h ** 0.5) * Math.sin(h * phase);
    }
    out[i] = sample;
  }
  const peak = out.reduce((max, value) => Math.max(max, Math.abs(value)), 0) || 1;
  return out.map((value) => (value / peak) * amplitude);
}

function join(...parts: Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((sum, part) => sum + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function mix(a: Float64Array, b: Float64Array): Float64Array {
  return a.map((value, i) => value + (b[i] ?? 0));
}

function pcm(samples: Float64Array): Int16Array {
  return Int16Array.from(samples, (value) => Math.max(-32768, Math.min(32767, Math.round(value))));
}

/** The audio as Parley hears a phone call: 8 kHz μ-law on the wire, back to 16 kHz in the engine. */
function overThePhone(samples: Int16Array): Int16Array {
  const down = new Resampler(RATE, 8000).process(samples);
  return new Resampler(8000, RATE).process(decodeMulaw(encodeMulaw(down)));
}

/** Every event the detector answers for `samples`, fed in 20 ms frames from time 0. */
function events(samples: Int16Array, detector = new BeepDetector({ sampleRate: RATE })): BeepEvent[] {
  const found: BeepEvent[] = [];
  for (let offset = 0; offset + FRAME <= samples.length; offset += FRAME) {
    const event = detector.push(samples.subarray(offset, offset + FRAME), (offset * 1000) / RATE);
    if (event) found.push(event);
  }
  return found;
}

describe('the beep detector', () => {
  it('finds a 1 kHz beep, when it starts once long enough and when it ends', () => {
    const found = events(pcm(join(silence(500), sine(1000, 400), silence(500))));
    expect(found).toEqual([
      { type: 'beep_started', atMs: 500, frequencyHz: 1000 },
      { type: 'beep_ended', atMs: 900, frequencyHz: 1000, durationMs: 400 },
    ]);
  });

  it.each([800, 850, 1012, 1400, 1633, 2000])('finds a beep at %d Hz, on or between the frequencies it measures', (hz) => {
    const found = events(pcm(join(silence(200), sine(hz, 300), silence(200))));
    expect(found.map((event) => event.type)).toEqual(['beep_started', 'beep_ended']);
    expect(Math.abs(found[0]!.frequencyHz - hz)).toBeLessThanOrEqual(12.5);
  });

  it('finds the sandbox carrier\'s beep and a quiet one through the phone line\'s codec and resampling', () => {
    for (const amplitude of [8000, 800]) {
      const found = events(overThePhone(pcm(join(silence(300), sine(1000, 400, amplitude), silence(300)))));
      expect(found.map((event) => event.type)).toEqual(['beep_started', 'beep_ended']);
      expect(found[1]).toMatchObject({ frequencyHz: 1000 });
      expect(Math.abs((found[1] as { durationMs: number }).durationMs - 400)).toBeLessThanOrEqual(40);
    }
  });

  it('finds a beep under noise, and each of several beeps in a row', () => {
    expect(events(pcm(mix(join(silence(200), sine(1400, 300), silence(200)), noise(700, 1500)))).map((event) => event.type)).toEqual(['beep_started', 'beep_ended']);
    const three = events(pcm(join(sine(1000, 200), silence(100), sine(1000, 200), silence(100), sine(1000, 200), silence(100))));
    expect(three.filter((event) => event.type === 'beep_ended')).toHaveLength(3);
  });

  it('ignores tones too short, too quiet, or outside the beeps\' band', () => {
    expect(events(pcm(join(sine(1000, 80), silence(200))))).toEqual([]);
    expect(events(pcm(join(sine(1000, 400, 200), silence(200))))).toEqual([]);
    expect(events(pcm(join(sine(400, 400), silence(200))))).toEqual([]);
    expect(events(pcm(join(sine(3000, 400), silence(200))))).toEqual([]);
  });

  it('hears no beep in speech-like sound, noise, a tone that glides, or two tones at once (a keypad digit)', () => {
    const speech = join(voiced(600, 110, 150), silence(100), voiced(900, 220, 180), voiced(700, 120, 95), silence(100), voiced(1200, 180, 240));
    expect(events(pcm(speech))).toEqual([]);
    expect(events(overThePhone(pcm(speech)))).toEqual([]);
    // A held vowel at a steady pitch is the hardest case: its strongest harmonic still holds too little.
    expect(events(pcm(voiced(1500, 140, 141)))).toEqual([]);
    expect(events(pcm(noise(2000, 8000, 7)))).toEqual([]);
    const chirp = Float64Array.from({ length: RATE * 0.6 }, (_, i) => 8000 * Math.sin(2 * Math.PI * (800 * (i / RATE) + 1000 * (i / RATE) ** 2)));
    expect(events(pcm(chirp))).toEqual([]);
    expect(events(pcm(mix(sine(697, 400, 5000), sine(1209, 400, 5000))))).toEqual([]);
  });

  it('costs little per 20 ms frame', () => {
    const detector = new BeepDetector({ sampleRate: RATE });
    // Loud frames: every frequency is measured (quiet ones stop after the energy sum).
    const loud = pcm(mix(sine(1000, 20), noise(20, 4000, 3)));
    for (let i = 0; i < 200; i++) detector.push(loud, i * 20);
    const frames = 5000;
    const started = performance.now();
    for (let i = 0; i < frames; i++) detector.push(loud, i * 20);
    const perFrameUs = ((performance.now() - started) * 1000) / frames;
    console.log(`beep detector: ${perFrameUs.toFixed(1)} µs of CPU per 20 ms frame (${((perFrameUs / 20_000) * 100).toFixed(2)} % of real time)`);
    // A generous bound for a loaded machine; typical is a few tens of microseconds.
    expect(perFrameUs).toBeLessThan(1000);
  });
});
