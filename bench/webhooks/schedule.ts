import type { DeliveryPolicy } from '../../src/webhooks/policy.ts';

/**
 * When, by `policy`, the first attempt at or after `at` of a delivery whose first attempt was at `firstAttemptAt`
 * falls (attempts follow one another by the policy's waits; an attempt's own time is left out), or undefined when
 * its last attempt comes before: how long after a receiver's return an event that kept failing reaches it.
 */
export function firstAttemptAfter(policy: DeliveryPolicy, firstAttemptAt: number, at: number): number | undefined {
  let attemptAt = firstAttemptAt;
  for (const delayMs of [0, ...policy.delaysMs]) {
    attemptAt += delayMs;
    if (attemptAt >= at) return attemptAt;
  }
  return undefined;
}
