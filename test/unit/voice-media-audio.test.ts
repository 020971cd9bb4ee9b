import { describe, expect, it } from 'vitest';
import { decodeMulaw, encodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { MediaStreamAudio } from '../../src/voice/serializers/media-audio.ts';
import { MediaStreamMessageError } from '../../src/voice/serializers/twilio.ts';

const mulaw = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } as const;
const l16 = { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 } as const;

function sine(frequency: number, rate: number, seconds: number): Int16Array {
  return Int16Array.from({ length: rate * seconds }, (_, i) => Math.round(8000 * Math.sin((2 * Math.PI * frequency * i) / rate)));
}

/** Zero crossings from `from` on, over `count` samples. */
function crossings(samples: Int16Array, from: number, count: number): number {
  let total = 0;
  for (let i = from + 1; i < from + count; i++) if ((samples[i - 1]! < 0) !== (samples[i]! < 0)) total++;
  return total;
}

function joined(parts: Int16Array[]): Int16Array {
  const all = new Int16Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((offset, part) => (all.set(part, offset), offset + part.length), 0);
  return all;
}

describe('MediaStreamAudio on a carrier stream (8 kHz μ-law)', () => {
  it('decodes each 20 ms payload to 20 ms of 16 kHz PCM16 that keeps the caller\'s tone', () => {
    const audio = new MediaStreamAudio(mulaw);
    const caller = encodeMulaw(sine(440, 8000, 1));
    const frames: Int16Array[] = [];
    for (let offset = 0; offset < caller.length; offset += 160) {
      const frame = audio.decode(Buffer.from(caller.subarray(offset, offset + 160)).toString('base64'));
      expect(frame.length).toBe(320);
      frames.push(frame);
    }
    const pcm = joined(frames);
    expect(crossings(pcm, 1600, 8000)).toBeGreaterThanOrEqual(439);
    expect(crossings(pcm, 1600, 8000)).toBeLessThanOrEqual(441);
  });

  it('encodes 16 kHz PCM16 in chunks of any size into 160-byte payloads, and flushes the rest', () => {
    const audio = new MediaStreamAudio(mulaw);
    const speech = sine(440, 16000, 1).subarray(0, 16000 - 90);
    const payloads: string[] = [];
    for (let offset = 0, k = 0; offset < speech.length; k++) {
      const size = [1, 333, 0, 640, 17][k % 5]!;
      payloads.push(...audio.encode(speech.subarray(offset, offset + size)));
      offset += size;
    }
    const frames = payloads.map((payload) => Buffer.from(payload, 'base64'));
    expect(frames.every((frame) => frame.length === 160)).toBe(true);
    const rest = audio.flush().map((payload) => Buffer.from(payload, 'base64'));
    expect(audio.flush()).toEqual([]);
    expect(rest.map((frame) => frame.length)).toEqual([(16000 - 90) / 2 - frames.length * 160]);
    const heard = decodeMulaw(Buffer.concat([...frames, ...rest]));
    expect(heard.length).toBe((16000 - 90) / 2);
    expect(crossings(heard, 400, 4000)).toBeGreaterThanOrEqual(439);
    expect(crossings(heard, 400, 4000)).toBeLessThanOrEqual(441);
  });
});

describe('MediaStreamAudio after a clear', () => {
  it('sends the next utterance exactly as a fresh stream would, with nothing of the interrupted one', () => {
    const next = sine(300, 16000, 0.1);
    const fresh = new MediaStreamAudio(mulaw);
    const expected = [...fresh.encode(next), ...fresh.flush()];
    const audio = new MediaStreamAudio(mulaw);
    expect(audio.encode(sine(440, 16000, 0.1).subarray(0, 1234)).length).toBeGreaterThan(0);
    audio.clearOutbound();
    expect(audio.flush()).toEqual([]);
    expect([...audio.encode(next), ...audio.flush()]).toEqual(expected);
  });
});

describe('MediaStreamAudio on a web call (16 kHz L16)', () => {
  it('reads little-endian payloads without resampling, and answers in 640-byte frames of the same format', () => {
    const audio = new MediaStreamAudio(l16);
    const samples = Int16Array.from([0x1234, -2, 32767, -32768]);
    expect([...audio.decode(Buffer.from(samples.buffer).toString('base64'))]).toEqual([...samples]);
    const speech = sine(440, 16000, 0.05);
    const payloads = audio.encode(speech);
    expect(payloads.map((payload) => Buffer.from(payload, 'base64').length)).toEqual([640, 640]);
    const rest = audio.flush();
    const echoed = joined([...payloads, ...rest].map((payload) => {
      const bytes = Buffer.from(payload, 'base64');
      return Int16Array.from({ length: bytes.length / 2 }, (_, i) => bytes.readInt16LE(i * 2));
    }));
    expect([...echoed]).toEqual([...speech]);
  });

  it('refuses a payload holding half a sample', () => {
    const audio = new MediaStreamAudio(l16);
    expect(() => audio.decode(Buffer.from([1, 2, 3]).toString('base64'))).toThrow(MediaStreamMessageError);
  });
});
