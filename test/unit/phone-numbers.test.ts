import { describe, expect, it } from 'vitest';
import { toE164 } from '../../src/lib/phone-numbers.ts';

describe('toE164', () => {
  it('writes valid numbers in E.164, dropping separators, from +, 00 or bare digits with the country code', () => {
    expect(toE164('+14155550101')).toBe('+14155550101');
    expect(toE164(' +1 (415) 555-0101 ')).toBe('+14155550101');
    expect(toE164('0044 20 7946 0958')).toBe('+442079460958');
    expect(toE164('14155550101')).toBe('+14155550101');
    expect(toE164('+49.30.123456')).toBe('+4930123456');
  });

  it('refuses what is not a valid number of a known country', () => {
    for (const written of ['', 'abc', '555-0101', '+1999', '+1 415 555 01012345', '+0 415 555 0101', '+1415555010x', '++14155550101']) {
      expect(toE164(written), written).toBeUndefined();
    }
  });
});
