import { describe, expect, it } from 'vitest';
import { microsToUsd, parseUsd, usdToMicros } from '../../src/lib/money.ts';
import { isoTimestamp, isTimeZone, sqlTimestamp } from '../../src/lib/time.ts';
import { formatToken, parseToken, randomSecret, secretMatches, sha256Hex } from '../../src/lib/tokens.ts';

describe('money', () => {
  it('keeps sums exact in micro-dollars', () => {
    const total = [0.1, 0.2, 0.01].map(usdToMicros).reduce((a, b) => a + b, 0);
    expect(total).toBe(310_000);
    expect(microsToUsd(total)).toBe(0.31);
    expect(microsToUsd(-1)).toBe(-0.000001);
  });

  it('parses decimal USD text and refuses anything else', () => {
    expect(parseUsd('12')).toBe(12_000_000);
    expect(parseUsd('-3.5')).toBe(-3_500_000);
    expect(parseUsd('0.000001')).toBe(1);
    for (const bad of ['ten', '1.0000001', '1e3', '', '--1', '1,5']) expect(parseUsd(bad), bad).toBeUndefined();
  });
});

describe('timestamps', () => {
  const date = new Date('2025-06-30T11:53:20.123Z');
  it('writes ISO 8601 UTC with microseconds', () => {
    expect(isoTimestamp(date)).toBe('2025-06-30T11:53:20.123000Z');
    expect(isoTimestamp(null)).toBeNull();
  });
  it('writes the SQL style of calls and leads', () => {
    expect(sqlTimestamp(date)).toBe('2025-06-30 11:53:20');
  });
  it('knows IANA time zones', () => {
    expect(isTimeZone('Europe/Bucharest')).toBe(true);
    expect(isTimeZone('UTC')).toBe(true);
    expect(isTimeZone('Mars/Olympus')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});

describe('tokens', () => {
  it('formats and parses id|secret', () => {
    const secret = randomSecret();
    expect(secret).toMatch(/^[A-Za-z0-9]{48}$/);
    expect(parseToken(formatToken(42, secret))).toEqual({ id: 42, secret });
    for (const bad of ['42', '|abc', `x|${secret}`, `42|short`, `42|${secret}!`]) expect(parseToken(bad), bad).toBeUndefined();
  });

  it('matches a secret against its stored hash only', () => {
    const secret = randomSecret();
    expect(secretMatches(secret, sha256Hex(secret))).toBe(true);
    expect(secretMatches(randomSecret(), sha256Hex(secret))).toBe(false);
    expect(secretMatches(secret, 'not-hex')).toBe(false);
  });
});
