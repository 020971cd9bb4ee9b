import { describe, expect, it } from 'vitest';
import { firstAttemptAfter } from '../../bench/webhooks/schedule.ts';
import { DEFAULT_DELIVERY_POLICY } from '../../src/webhooks/policy.ts';

const s = 1000;

describe('the webhook drill\'s bound: the first attempt after the receiver is back', () => {
  it('is the first attempt itself when it comes after the return', () => {
    expect(firstAttemptAfter(DEFAULT_DELIVERY_POLICY, 70 * s, 60 * s)).toBe(70 * s);
  });

  it('follows the production waits, 30 s then 2 min then 10 min, counted from attempt to attempt', () => {
    // Produced at 10 s into a 60 s outage: attempts at 10 s and 40 s fail, the third is at 160 s.
    expect(firstAttemptAfter(DEFAULT_DELIVERY_POLICY, 10 * s, 60 * s)).toBe(160 * s);
    // Produced at 449 s into a 600 s outage: 449, 479 and 599 s fail, the fourth is at 1199 s.
    expect(firstAttemptAfter(DEFAULT_DELIVERY_POLICY, 449 * s, 600 * s)).toBe(1199 * s);
  });

  it('counts an attempt exactly at the return as after it', () => {
    expect(firstAttemptAfter(DEFAULT_DELIVERY_POLICY, 30 * s, 60 * s)).toBe(60 * s);
  });

  it('is undefined when the last attempt came before the return (the delivery is dead)', () => {
    expect(firstAttemptAfter({ delaysMs: [100, 100], maxRetryAfterMs: 0 }, 0, 201)).toBeUndefined();
  });
});
