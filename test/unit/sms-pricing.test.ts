import { describe, expect, it } from 'vitest';
import { isGsm7, smsCostMicros, smsSegments } from '../../src/billing/sms-pricing.ts';

/** 3GPP TS 23.038's default alphabet by position, 0x00 to 0x7F, with the escape (0x1B) left out. */
const DEFAULT_ALPHABET = [
  '@', '£', '$', '¥', 'è', 'é', 'ù', 'ì', 'ò', 'Ç', '\n', 'Ø', 'ø', '\r', 'Å', 'å',
  'Δ', '_', 'Φ', 'Γ', 'Λ', 'Ω', 'Π', 'Ψ', 'Σ', 'Θ', 'Ξ', 'Æ', 'æ', 'ß', 'É',
  ' ', '!', '"', '#', '¤', '%', '&', "'", '(', ')', '*', '+', ',', '-', '.', '/',
  ...'0123456789', ':', ';', '<', '=', '>', '?',
  '¡', ...'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'Ä', 'Ö', 'Ñ', 'Ü', '§',
  '¿', ...'abcdefghijklmnopqrstuvwxyz', 'ä', 'ö', 'ñ', 'ü', 'à',
];
/** Its extension table: form feed, ^ { } \ [ ~ ] | €. */
const EXTENSION = ['\f', '^', '{', '}', '\\', '[', '~', ']', '|', '€'];

const times = (text: string, count: number) => text.repeat(count);

describe('isGsm7', () => {
  it('knows exactly the default alphabet and its extension table, of every character of the Basic Multilingual Plane', () => {
    expect(DEFAULT_ALPHABET).toHaveLength(127);
    const gsm = new Set([...DEFAULT_ALPHABET, ...EXTENSION]);
    const disagreements: string[] = [];
    for (let code = 0; code <= 0xffff; code++) {
      const character = String.fromCharCode(code);
      if (isGsm7(character) !== gsm.has(character)) disagreements.push(code.toString(16));
    }
    expect(disagreements).toEqual([]);
  });

  it('is false for a text with one character outside both tables, lower-case ç and emoji included', () => {
    expect(isGsm7('Hello {world} for 5€')).toBe(true);
    expect(isGsm7('Garçon')).toBe(false);
    expect(isGsm7('Thanks 😀')).toBe(false);
    expect(isGsm7('')).toBe(true);
  });
});

describe('smsSegments in GSM-7', () => {
  it('fits 160 septets in one message, then parts of 153', () => {
    expect(smsSegments('')).toEqual({ encoding: 'GSM-7', units: 0, segments: 1 });
    expect(smsSegments('a')).toEqual({ encoding: 'GSM-7', units: 1, segments: 1 });
    expect(smsSegments(times('a', 160))).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSegments(times('a', 161))).toEqual({ encoding: 'GSM-7', units: 161, segments: 2 });
    expect(smsSegments(times('a', 306)).segments).toBe(2);
    expect(smsSegments(times('a', 307)).segments).toBe(3);
    expect(smsSegments(times('a', 459)).segments).toBe(3);
    expect(smsSegments(times('a', 460)).segments).toBe(4);
  });

  it('counts an extension character as two septets', () => {
    expect(smsSegments('€')).toEqual({ encoding: 'GSM-7', units: 2, segments: 1 });
    expect(smsSegments(times('a', 158) + '€')).toEqual({ encoding: 'GSM-7', units: 160, segments: 1 });
    expect(smsSegments(times('a', 159) + '€')).toEqual({ encoding: 'GSM-7', units: 161, segments: 2 });
    for (const character of EXTENSION) expect(smsSegments(character).units, JSON.stringify(character)).toBe(2);
    for (const character of DEFAULT_ALPHABET) expect(smsSegments(character).units, JSON.stringify(character)).toBe(1);
  });

  it('never splits an escape from its character: a part ends a septet early instead', () => {
    // 306 septets would be two full parts, but the brace falls on the first part's last septet.
    const straddling = times('a', 152) + '{' + times('a', 152);
    expect(smsSegments(straddling)).toEqual({ encoding: 'GSM-7', units: 306, segments: 3 });
    // Moved by one, the brace fits in the first part and two parts carry it all.
    expect(smsSegments(times('a', 151) + '{' + times('a', 153)).segments).toBe(2);
  });

  it('sends the longest message the API takes, 300 characters, in two parts, or four of extension characters', () => {
    expect(smsSegments(times('a', 300)).segments).toBe(2);
    // 76 euro signs fill 152 septets of a part: a 77th does not fit the one septet left.
    expect(smsSegments(times('€', 300))).toEqual({ encoding: 'GSM-7', units: 600, segments: 4 });
    expect(smsSegments(times('€', 76 * 2)).segments).toBe(2);
    expect(smsSegments(times('€', 76 * 2 + 1)).segments).toBe(3);
  });
});

describe('smsSegments in UCS-2', () => {
  it('turns the whole message to UCS-2 for one character outside the GSM tables', () => {
    expect(smsSegments(times('a', 69) + 'ç')).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    expect(smsSegments(times('a', 100) + 'ç')).toEqual({ encoding: 'UCS-2', units: 101, segments: 2 });
  });

  it('fits 70 code units in one message, then parts of 67', () => {
    const cyrillic = 'ж';
    expect(smsSegments(times(cyrillic, 70))).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    expect(smsSegments(times(cyrillic, 71)).segments).toBe(2);
    expect(smsSegments(times(cyrillic, 134)).segments).toBe(2);
    expect(smsSegments(times(cyrillic, 135)).segments).toBe(3);
    expect(smsSegments(times(cyrillic, 201)).segments).toBe(3);
    expect(smsSegments(times(cyrillic, 202)).segments).toBe(4);
    expect(smsSegments(times(cyrillic, 300)).segments).toBe(5);
  });

  it('counts a character beyond the Basic Multilingual Plane as two code units', () => {
    expect(smsSegments('😀')).toEqual({ encoding: 'UCS-2', units: 2, segments: 1 });
    expect(smsSegments(times('😀', 35))).toEqual({ encoding: 'UCS-2', units: 70, segments: 1 });
    expect(smsSegments(times('😀', 36))).toEqual({ encoding: 'UCS-2', units: 72, segments: 2 });
    // 33 emoji fill 66 units of a part: the 34th would be split, so it starts the next.
    expect(smsSegments(times('😀', 66)).segments).toBe(2);
    expect(smsSegments(times('😀', 67)).segments).toBe(3);
    expect(smsSegments(times('😀', 300))).toEqual({ encoding: 'UCS-2', units: 600, segments: 10 });
  });

  it('never splits a surrogate pair between parts', () => {
    const straddling = times('ж', 66) + '😀' + times('ж', 66);
    expect(smsSegments(straddling)).toEqual({ encoding: 'UCS-2', units: 134, segments: 3 });
    expect(smsSegments(times('ж', 65) + '😀' + times('ж', 67)).segments).toBe(2);
  });
});

describe('smsCostMicros', () => {
  it('is the price of a segment times the segments', () => {
    expect(smsCostMicros(1, 10_000)).toBe(10_000);
    expect(smsCostMicros(3, 7_900)).toBe(23_700);
    expect(smsCostMicros(2, 0)).toBe(0);
  });

  it('refuses what is not a number of segments or a price', () => {
    expect(() => smsCostMicros(0, 10_000)).toThrow(RangeError);
    expect(() => smsCostMicros(1.5, 10_000)).toThrow(RangeError);
    expect(() => smsCostMicros(1, -1)).toThrow(RangeError);
    expect(() => smsCostMicros(1, 0.5)).toThrow(RangeError);
  });
});
