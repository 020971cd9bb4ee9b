import { describe, expect, it } from 'vitest';
import { ambientMixer } from '../../src/voice/audio/ambient.ts';
import { wavHeader } from '../../src/lib/audio/wav.ts';
import { INTERNAL_SAMPLE_RATE } from '../../src/voice/audio/frames.ts';
import { CallRecorder } from '../../src/voice/audio/recorder.ts';
import { AMBIENT_SOUNDS } from '../../src/voice/settings.ts';
import { manualVoiceClock } from '../support/voice-clock.ts';

function memorySink() {
  const chunks: Buffer[] = [];
  let header: Buffer | undefined;
  return {
    chunks,
    sink: {
      write: (chunk: Buffer) => { chunks.push(chunk); return Promise.resolve(); },
      finish: (final: Buffer) => { header = final; return Promise.resolve(); },
    },
    file: () => {
      const file = Buffer.concat(chunks);
      header?.copy(file, 0);
      return file;
    },
  };
}

const frame = (value: number) => new Int16Array(320).fill(value);

describe('CallRecorder', () => {
  it('mixes the caller and the assistant on one timeline into a WAV as long as the call, writing as it goes', async () => {
    const clock = manualVoiceClock();
    const { sink, chunks, file } = memorySink();
    const recorder = new CallRecorder(sink, { clock, chunkMs: 100, holdMs: 40 });
    // Three seconds: the caller at 1000 throughout, the assistant at 500 from 1 s to 2 s (sent 60 ms early).
    for (let t = 0; t < 3000; t += 20) {
      clock.advance(20);
      recorder.inbound(frame(1000));
      if (t >= 940 && t < 1940) recorder.outbound(frame(500), clock.now() + 60);
    }
    await new Promise((resolve) => setImmediate(resolve));
    // Written in 100 ms chunks while the call went on, not held until its end.
    expect(chunks.length).toBeGreaterThan(25);
    await recorder.finish();
    const wav = file();
    expect(wav.subarray(0, 44)).toEqual(wavHeader(wav.length - 44, INTERNAL_SAMPLE_RATE));
    expect((wav.length - 44) / 2).toBe(48_000);
    const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    expect(samples[8000]).toBe(1000);
    expect(samples[24_000]).toBe(1500);
    expect(samples[40_000]).toBe(1000);
  });

  it('holds a bounded window: audio too far ahead of the caller is dropped, not buffered', async () => {
    const clock = manualVoiceClock();
    const { sink, file } = memorySink();
    const recorder = new CallRecorder(sink, { clock, chunkMs: 100, holdMs: 40 });
    recorder.outbound(frame(700), clock.now() + 60_000);
    clock.advance(200);
    await recorder.finish();
    const wav = file();
    const samples = new Int16Array(wav.buffer.slice(wav.byteOffset + 44, wav.byteOffset + wav.length));
    expect(samples.length).toBe(3200);
    expect(samples.every((sample) => sample === 0)).toBe(true);
  });
});

describe('ambientMixer', () => {
  it('adds an audible, bounded background of every kind, scaled by the volume', () => {
    for (const kind of AMBIENT_SOUNDS.filter((sound) => sound !== 'off')) {
      const loud = ambientMixer(kind, 1, 16000);
      const quiet = ambientMixer(kind, 0.1, 16000);
      let loudEnergy = 0;
      let quietEnergy = 0;
      for (let i = 0; i < 100; i++) {
        const a = new Int16Array(320);
        const b = new Int16Array(320);
        loud(a);
        quiet(b);
        for (let j = 0; j < 320; j++) {
          loudEnergy += a[j]! ** 2;
          quietEnergy += b[j]! ** 2;
        }
      }
      const rms = Math.sqrt(loudEnergy / 32000);
      expect(rms, kind).toBeGreaterThan(100);
      expect(rms, kind).toBeLessThan(8000);
      expect(Math.sqrt(quietEnergy / 32000), kind).toBeLessThan(rms / 5);
    }
  });
});
