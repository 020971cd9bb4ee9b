/**
 * When a webhook delivery is tried again. A leaf module without Node imports: the delivery workflow computes its
 * durable waits with it, and the activity classifies each answer with it.
 */

export interface DeliveryPolicy {
  /** The waits before the 2nd, 3rd, … attempt; their count plus one is the number of attempts. */
  delaysMs: number[];
  /** The longest wait a receiver's `Retry-After` may ask for; a longer one is cut to this. */
  maxRetryAfterMs: number;
  /** Whether a 408 is retried like a 5xx; false where the contract retries only 5xx and 429 (W3). */
  retryRequestTimeout?: boolean;
}

/** 30 s, 2 min, 10 min, 1 h, 6 h: six attempts over about seven hours. */
export const DEFAULT_DELIVERY_POLICY: DeliveryPolicy = {
  delaysMs: [30_000, 120_000, 600_000, 3_600_000, 21_600_000],
  maxRetryAfterMs: 21_600_000,
};

/** WhatsApp read receipts (W3, anchor §13.3): retried after 30 s, 60 s and 120 s on 5xx or 429; any other 4xx is final. */
export const READ_RECEIPT_POLICY: DeliveryPolicy = {
  delaysMs: [30_000, 60_000, 120_000],
  maxRetryAfterMs: 120_000,
  retryRequestTimeout: false,
};

/**
 * How one attempt went, from the receiver's status (undefined when no answer came: a network error, a
 * timeout, a refused address): `delivered` on 2xx; `retry` on no answer, 5xx, 408 and 429; `final` on any
 * other status (a 4xx says the request itself is wrong, and sending it again will not fix it; a 3xx left
 * after the redirects followed is treated alike).
 */
export type AttemptVerdict = 'delivered' | 'retry' | 'final';

export function attemptVerdict(status: number | undefined, retryRequestTimeout = true): AttemptVerdict {
  if (status === undefined) return 'retry';
  if (status >= 200 && status < 300) return 'delivered';
  if (status >= 500 || status === 429 || (status === 408 && retryRequestTimeout)) return 'retry';
  return 'final';
}

/**
 * A `Retry-After` header's wait in milliseconds: delay-seconds or an HTTP date (RFC 9110 §10.2.3); undefined
 * when absent or unreadable. A date in the past is no wait.
 */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/[a-z]/i.test(text)) return undefined;
  return Math.max(at - nowMs, 0);
}

/**
 * The wait after attempt `attempt` (1-based) failed in a way worth retrying, or undefined when it was the last.
 * A receiver's `Retry-After` replaces the policy's wait (it knows when it will be back), up to `maxRetryAfterMs`.
 */
export function retryDelay(policy: DeliveryPolicy, attempt: number, retryAfterMs?: number): number | undefined {
  const planned = policy.delaysMs[attempt - 1];
  if (planned === undefined) return undefined;
  return retryAfterMs === undefined ? planned : Math.min(retryAfterMs, policy.maxRetryAfterMs);
}

export function maxAttempts(policy: DeliveryPolicy): number {
  return policy.delaysMs.length + 1;
}
