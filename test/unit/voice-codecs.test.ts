import { describe, expect, it } from 'vitest';
import { bytesPerFrame, samplesPerFrame } from '../../src/voice/audio/frames.ts';
import { decodeMulaw, encodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { pcm16FromBytes, pcm16ToBytes } from '../../src/lib/audio/pcm.ts';

const allCodes = Uint8Array.from({ length: 256 }, (_, code) => code);

describe('G.711 μ-law', () => {
  it('encodes every decoded code back to itself, except negative zero, which becomes zero', () => {
    const again = encodeMulaw(decodeMulaw(allCodes));
    for (let code = 0; code < 256; code++) expect(again[code], `code 0x${code.toString(16)}`).toBe(code === 0x7f ? 0xff : code);
  });

  it('matches the reference values of G.711', () => {
    const encode = (...samples: number[]) => [...encodeMulaw(Int16Array.from(samples))];
    expect(encode(0, 32767, -32768, 32635, -32635)).toEqual([0xff, 0x80, 0x00, 0x80, 0x00]);
    expect(encode(-1, 1, 8, -8)).toEqual([0x7f, 0xff, 0xfe, 0x7e]);
    // Segment edges: the first segment ends at 123, the second starts at 124 (bias 132: 256 = 2^8).
    expect(encode(123, 124, -123, -124)).toEqual([0xf0, 0xef, 0x70, 0x6f]);
    expect([...decodeMulaw(Uint8Array.from([0xff, 0x7f, 0xfe, 0xf0, 0xef, 0x80, 0x00]))])
      .toEqual([0, 0, 8, 120, 132, 32124, -32124]);
  });

  it('decodes the eight segments with steps doubling from 8 to 1024', () => {
    const decoded = decodeMulaw(allCodes);
    for (let segment = 0; segment < 8; segment++) {
      const first = 0xff - segment * 16; // inverted: step 0 of the segment, positive
      expect(decoded[first - 1]! - decoded[first]!).toBe(8 << segment);
      expect(decoded[first]).toBe((132 << segment) - 132);
      expect(decoded[first & 0x7f]! + decoded[first]!).toBe(0);
    }
  });

  it('quantises every 16-bit value to the nearest level of its segment or the one below it', () => {
    const samples = Int16Array.from({ length: 65536 }, (_, i) => i - 32768);
    const decoded = decodeMulaw(encodeMulaw(samples));
    for (let i = 0; i < samples.length; i++) {
      const sample = Math.max(-32635, Math.min(32635, samples[i]!));
      const step = 8 << Math.max(0, 31 - Math.clz32((Math.abs(sample) + 132) >> 7));
      expect(Math.abs(decoded[i]! - sample)).toBeLessThanOrEqual(step);
      expect(Math.sign(decoded[i]!) * Math.sign(sample)).not.toBe(-1);
    }
  });
});

describe('PCM16 bytes and samples', () => {
  it('reads little-endian bytes as a view over the same memory when aligned', () => {
    const bytes = Buffer.from([0x01, 0x00, 0xff, 0x7f, 0x00, 0x80, 0xff, 0xff]);
    const samples = pcm16FromBytes(bytes);
    expect([...samples]).toEqual([1, 32767, -32768, -1]);
    expect(samples.buffer).toBe(bytes.buffer);
    bytes[0] = 2;
    expect(samples[0]).toBe(2);
  });

  it('copies bytes that start on an odd offset, with the same values', () => {
    const backing = new Uint8Array([0xaa, 0x34, 0x12, 0xcc, 0xed]);
    const samples = pcm16FromBytes(backing.subarray(1));
    expect([...samples]).toEqual([0x1234, 0xedcc - 0x10000]);
    expect(samples.buffer).not.toBe(backing.buffer);
  });

  it('refuses half a sample', () => {
    expect(() => pcm16FromBytes(new Uint8Array(3))).toThrow(RangeError);
  });

  it('writes samples as little-endian bytes over the same memory, and round-trips', () => {
    const samples = Int16Array.from([0x1234, -2, 0]);
    const bytes = pcm16ToBytes(samples);
    expect([...bytes]).toEqual([0x34, 0x12, 0xfe, 0xff, 0x00, 0x00]);
    expect(bytes.buffer).toBe(samples.buffer);
    expect([...pcm16FromBytes(bytes)]).toEqual([...samples]);
  });
});

describe('frames', () => {
  it('are 20 ms: 160 bytes of μ-law at 8 kHz, 640 bytes of PCM16 at 16 kHz', () => {
    expect(bytesPerFrame('mulaw', 8000)).toBe(160);
    expect(bytesPerFrame('pcm16', 16000)).toBe(640);
    expect(samplesPerFrame(48000)).toBe(960);
    expect(samplesPerFrame(24000, 10)).toBe(240);
  });

  it('refuse a duration that is not a whole number of samples', () => {
    expect(() => samplesPerFrame(44100, 1)).toThrow(RangeError);
  });
});
