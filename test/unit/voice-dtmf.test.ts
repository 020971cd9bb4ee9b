import { describe, expect, it } from 'vitest';
import { DTMF_TIMING, dtmfFrequencies, dtmfTones } from '../../src/voice/audio/dtmf.ts';
import { decodeKeys, detectKey, goertzel } from '../support/dtmf.ts';

const RATE = 8000;

describe('DTMF tones', () => {
  it('maps every key to its ITU-T Q.23 row and column frequencies', () => {
    expect(dtmfFrequencies('1')).toEqual([697, 1209]);
    expect(dtmfFrequencies('5')).toEqual([770, 1336]);
    expect(dtmfFrequencies('9')).toEqual([852, 1477]);
    expect(dtmfFrequencies('0')).toEqual([941, 1336]);
    expect(dtmfFrequencies('*')).toEqual([941, 1209]);
    expect(dtmfFrequencies('#')).toEqual([941, 1477]);
    expect(dtmfFrequencies('D')).toEqual([941, 1633]);
    expect(() => dtmfFrequencies('E')).toThrow(RangeError);
  });

  it('plays each key for 100 ms, then 100 ms of silence, and w as half a second of silence', () => {
    const samples = dtmfTones('1w2', RATE);
    const ms = (count: number) => (count * 1000) / RATE;
    expect(ms(samples.length)).toBe(2 * (DTMF_TIMING.toneMs + DTMF_TIMING.gapMs) + DTMF_TIMING.pauseMs);
    const loud = (from: number, to: number) => samples.subarray((from * RATE) / 1000, (to * RATE) / 1000).some((sample) => Math.abs(sample) > 100);
    expect(loud(10, 90)).toBe(true);
    expect(loud(100, 700)).toBe(false);
    expect(loud(710, 790)).toBe(true);
    expect(loud(800, 900)).toBe(false);
    expect(Math.max(...samples.map(Math.abs))).toBeLessThan(32767 * 0.6);
  });

  it('holds exactly the key\'s two frequencies, which a Goertzel receiver decodes back to the keys', () => {
    const keys = '0123456789*#ABCD';
    const samples = dtmfTones(keys, RATE);
    const step = ((DTMF_TIMING.toneMs + DTMF_TIMING.gapMs) * RATE) / 1000;
    // The middle 80 ms of each tone, past the ramps.
    const decoded = [...keys].map((_, index) => detectKey(samples.subarray(index * step + 80, index * step + 720), RATE));
    expect(decoded.join('')).toBe(keys);
    // The gaps hold nothing a receiver would take for a key, and a whole run reads back as the keys.
    expect(detectKey(samples.subarray(step - 600, step), RATE)).toBeUndefined();
    expect(decodeKeys(dtmfTones('911w#', RATE), RATE)).toBe('911#');
  });

  it('comes out the same at the engine\'s 16 kHz', () => {
    const samples = dtmfTones('7', 16000);
    const block = samples.subarray(160, 1440);
    const power = (frequency: number) => goertzel(block, frequency, 16000);
    expect(power(852)).toBeGreaterThan(100 * power(770));
    expect(power(1209)).toBeGreaterThan(100 * power(1336));
  });

  it('refuses keys a keypad does not have', () => {
    expect(() => dtmfTones('12x', RATE)).toThrow(RangeError);
    expect(() => dtmfTones('', RATE)).toThrow(RangeError);
  });
});
