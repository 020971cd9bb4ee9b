import { FetchRefusedError, type FetchRefusal, type SafeFetch } from '../lib/safe-fetch.ts';
import { attemptVerdict, parseRetryAfter, type AttemptVerdict } from './policy.ts';
import { SHA256_SIGNATURE_HEADER, SIGNATURE_HEADER, sha256SignatureHeader, signatureHeader } from './signature.ts';

export const WEBHOOK_USER_AGENT = 'Parley-Webhooks/1.0';
/** How long a receiver gets to answer one attempt. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The most of an answer read; a longer one fails the attempt as the guarded client refuses it. */
export const ANSWER_MAX_BYTES = 256 * 1024;
/** What the delivery log keeps of each answer. */
export const EXCERPT_BYTES = 1024;

export interface WebhookRequest {
  url: string;
  /** The JSON body, exactly as signed and sent. */
  body: string;
  eventId: string;
  kind: string;
  /** The account's signing secrets in force, newest first. */
  secrets: readonly string[];
  /**
   * How the body is signed: `parley` (X-Parley-Signature with each of `secrets`, the default), or `sha256`
   * (X-Signature-256 with the first of them: a WhatsApp sender's secret, anchor §13.3).
   */
  scheme?: 'parley' | 'sha256';
  /** Whether a 408 is retried (DeliveryPolicy.retryRequestTimeout); true unless given. */
  retryRequestTimeout?: boolean;
  /** Unix milliseconds: when the attempt is made (its signature's time). */
  nowMs: number;
  /** How long the receiver gets; ATTEMPT_TIMEOUT_MS unless the sender cannot wait that long (the inbound-call webhook). */
  timeoutMs?: number;
}

/** One attempt as the delivery log keeps it, with the answer's body for whoever wants it (a call's `webhook_response`). */
export interface AttemptResult {
  verdict: AttemptVerdict;
  /** Undefined when no answer came. */
  statusCode?: number;
  latencyMs: number;
  /** The first EXCERPT_BYTES of the answer, as text. */
  excerpt: string;
  /** Why no answer came (or the answer could not be read). */
  error?: string;
  /** The receiver's `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
  answer?: { contentType: string; body: Buffer };
}

/**
 * Makes one signed POST of a webhook through the guarded client (so a receiver's address is checked after DNS
 * and on each redirect), and says how it went. Never throws for anything the receiver or the network does.
 */
export async function sendWebhook(fetch: SafeFetch, request: WebhookRequest, now: () => number = Date.now): Promise<AttemptResult> {
  const headers = {
    'content-type': 'application/json',
    'user-agent': WEBHOOK_USER_AGENT,
    'idempotency-key': request.eventId,
    'x-parley-event-id': request.eventId,
    'x-parley-event': request.kind,
    ...(request.scheme === 'sha256'
      ? { [SHA256_SIGNATURE_HEADER.toLowerCase()]: sha256SignatureHeader(request.body, request.secrets[0] ?? '') }
      : { [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(request.body, request.secrets, Math.floor(request.nowMs / 1000)) }),
  };
  const started = now();
  try {
    const response = await fetch(request.url, {
      method: 'POST', headers, body: request.body, timeoutMs: request.timeoutMs ?? ATTEMPT_TIMEOUT_MS, maxBytes: ANSWER_MAX_BYTES,
    });
    return {
      verdict: attemptVerdict(response.status, request.retryRequestTimeout),
      statusCode: response.status,
      latencyMs: now() - started,
      excerpt: excerpt(response.body),
      retryAfterMs: parseRetryAfter(response.headers['retry-after'], now()),
      answer: { contentType: response.contentType, body: response.body },
    };
  } catch (error) {
    if (!(error instanceof FetchRefusedError)) throw error;
    // An address that may never be reached is not worth waiting hours for; a network that fails may recover.
    const verdict = unreachable.has(error.reason) ? 'final' : attemptVerdict(undefined);
    return { verdict, latencyMs: now() - started, excerpt: '', error: error.message };
  }
}

const unreachable = new Set<FetchRefusal>(['invalid-url', 'scheme', 'private-address']);

/** The first EXCERPT_BYTES of a body as text, not cutting a character in two. */
export function excerpt(body: Buffer): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(body.subarray(0, EXCERPT_BYTES)).replace(/\uFFFD$/, '');
}
