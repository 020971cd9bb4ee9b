import type { Knex } from 'knex';
import type { SafeFetch } from '../lib/safe-fetch.ts';
import type { SecretBox } from '../lib/secrets.ts';
import type { Logger } from '../logger.ts';
import { recordAttempt, recordWebhookEvent } from './deliveries.ts';
import { signingSecrets } from './secrets.ts';
import { sendWebhook, type AttemptResult } from './send.ts';

/**
 * The inbound-call webhook (`call.inbound`): asked once, synchronously, while the carrier waits for the answer to
 * a call, so it has its own short timeout and is never retried (docs/decisions.md, "The inbound-call webhook").
 */

/** How long an inbound call waits for its webhook's answer before it is answered without it. */
export const INBOUND_WEBHOOK_TIMEOUT_MS = 2000;

export interface InboundCallFacts {
  callId: number;
  userId: number;
  /** The caller's number. */
  from: string;
  /** The number called (the owner's). */
  to: string;
  assistant: { id: number; uuid: string; name: string };
}

/** The body posted: the numbers named as in the post-call webhook (`customer_phone`, `assistant_phone`). */
export function inboundCallPayload(facts: InboundCallFacts): Record<string, unknown> {
  return {
    event: 'call.inbound',
    call_id: facts.callId,
    customer_phone: facts.from,
    assistant_phone: facts.to,
    assistant: { id: facts.assistant.id, uuid: facts.assistant.uuid, name: facts.assistant.name },
  };
}

export type InboundAnswer = { ok: true; variables: Record<string, unknown> } | { ok: false; error: string };

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/**
 * What the receiver's answer gives the call: the `variables` object of a 2xx JSON object (or its `data.variables`,
 * the envelope Parley's own API answers in), none from an empty 2xx answer or an object without them; anything
 * else (no answer, another status, text, another JSON value, `variables` that are not an object) is a failure.
 */
export function inboundAnswer(attempt: AttemptResult): InboundAnswer {
  if (attempt.verdict !== 'delivered' || !attempt.answer) {
    return { ok: false, error: attempt.error ?? `HTTP ${attempt.statusCode ?? 'without a status'}` };
  }
  const text = attempt.answer.body.toString('utf8');
  if (text.trim() === '') return { ok: true, variables: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: 'The answer is not JSON.' };
  }
  if (!isObject(value)) return { ok: false, error: 'The answer is not a JSON object.' };
  const variables = 'variables' in value ? value.variables : isObject(value.data) && 'variables' in value.data ? value.data.variables : {};
  if (!isObject(variables)) return { ok: false, error: 'The answer\'s `variables` is not an object.' };
  return { ok: true, variables };
}

export interface InboundWebhookDeps {
  knex: Knex;
  box: SecretBox;
  fetch: SafeFetch;
  logger: Logger;
}

export interface InboundWebhookOutcome {
  /** The variables the receiver gave the call; empty when it gave none or failed. */
  variables: Record<string, unknown>;
  /** The attempt being stored in the delivery log; never rejects (a failure to store it is logged). */
  logged: Promise<void>;
}

/**
 * Posts the call to the assistant's inbound webhook, signed, as a delivery with one attempt, and answers with the
 * variables the receiver gave. Never throws and never waits longer than INBOUND_WEBHOOK_TIMEOUT_MS for the
 * receiver: whatever goes wrong is logged, and the call goes on without variables. The attempt is stored while
 * the caller uses the answer (`logged`).
 */
export async function askInboundWebhook(deps: InboundWebhookDeps, url: string, facts: InboundCallFacts): Promise<InboundWebhookOutcome> {
  const { knex, logger } = deps;
  const context = { callId: facts.callId, assistantId: facts.assistant.id };
  try {
    const payload = inboundCallPayload(facts);
    const [secrets, { deliveryId, eventId }] = await Promise.all([
      signingSecrets(knex, deps.box, facts.userId, new Date()),
      recordWebhookEvent(knex, { userId: facts.userId, assistantId: facts.assistant.id, callId: facts.callId, kind: 'call.inbound', url, payload }),
    ]);
    const nowMs = Date.now();
    const attempt = await sendWebhook(deps.fetch, {
      url, body: JSON.stringify(payload), eventId, kind: 'call.inbound', secrets, nowMs, timeoutMs: INBOUND_WEBHOOK_TIMEOUT_MS,
    });
    const answer = inboundAnswer(attempt);
    if (!answer.ok) {
      logger.warn({ ...context, deliveryId, statusCode: attempt.statusCode, latencyMs: attempt.latencyMs, error: answer.error }, 'the inbound call webhook failed: the call is answered without its variables');
    }
    const logged = recordAttempt(knex, deliveryId, {
      attempt: 1,
      attemptedAt: new Date(nowMs),
      statusCode: attempt.statusCode,
      latencyMs: attempt.latencyMs,
      excerpt: attempt.excerpt,
      // A 2xx whose body gives nothing usable failed all the same; another status speaks for itself.
      error: attempt.verdict === 'delivered' && !answer.ok ? answer.error : attempt.error,
    }, { status: answer.ok ? 'delivered' : 'failed', nextAttemptAt: null }).catch((error: unknown) => {
      logger.error({ ...context, deliveryId, err: error }, 'the inbound call webhook\'s attempt could not be stored');
    });
    return { variables: answer.ok ? answer.variables : {}, logged };
  } catch (error) {
    logger.error({ ...context, err: error }, 'the inbound call webhook could not be sent: the call is answered without its variables');
    return { variables: {}, logged: Promise.resolve() };
  }
}
