/**
 * Post-call webhooks for the webhook bench and drill, as a finished call queues them, without the calls.
 *
 * Real: the account, its assistant and `enable-webhook` through the API; the post-call body, the delivery row,
 * the event id and the first attempt made by the worker's own `queuePostCallWebhook` activity; for an event
 * whose first attempt asks for a retry, the delivery's `webhookDeliveryWorkflow` started through the Temporal
 * client as the API's starter does (`startWebhookDelivery`), on the production retry policy, its attempts made by
 * the worker's `attemptWebhookDelivery`; every attempt through the guarded fetch client, signed.
 *
 * Shortcut: the call itself. Its row is inserted as `finalizeCall` leaves an answered outbound call that the
 * customer hung up (status, end reason, answer and end times, duration, turns and their transcript, the
 * evaluation), without a call workflow, media session or ledger entry, and its webhook is queued by calling the
 * activity from this process instead of from the end of `callLifecycle` (where a child workflow starts the same
 * delivery workflow for the retries). So the first attempt is made in this process, not the worker's.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createWebhookActivities } from '../../activities/webhooks.ts';
import { callTranscript } from '../../src/agent/transcript.ts';
import type { Config } from '../../src/config.ts';
import type { Logger } from '../../src/logger.ts';
import type { Providers } from '../../src/providers/index.ts';
import { createApiKey } from '../../src/resources/api-keys/service.ts';
import { createUser } from '../../src/resources/users/service.ts';
import type { TemporalClient } from '../../src/temporal/client.ts';
import { startWebhookDelivery } from '../../src/temporal/starters.ts';
import { createTestAssistant } from '../../test/support/assistants.ts';
import { spokenTurns } from '../../test/support/calls.ts';
import { apiRequest } from '../../test/support/http.ts';

export interface WebhookAccount {
  userId: number;
  assistantId: number;
  /** The account's signing secret, as `GET /user/webhook-signing-secret` shows it. */
  secret: string;
}

/** A user with an outbound assistant whose post-call webhook is enabled, through the API, to `url`. */
export async function setUpWebhookAccount(knex: Knex, baseUrl: string, url: string): Promise<WebhookAccount> {
  const request = apiRequest(baseUrl);
  const user = await createUser(knex, { name: 'Webhooks', email: `webhooks-${randomUUID()}@example.test` });
  const { token } = await createApiKey(knex, user.id, 'webhooks');
  const assistant = await createTestAssistant({ request }, { token }, { name: 'Webhook bench' });
  const enabled = await request('POST', '/user/assistants/enable-webhook', { token, body: { assistant_id: assistant.id, webhook_url: url } });
  if (enabled.status !== 200) throw new Error(`enabling the webhook: HTTP ${enabled.status} ${enabled.text}`);
  const secret = await request<{ data: { secret: string } }>('GET', '/user/webhook-signing-secret', { token });
  if (secret.status !== 200) throw new Error(`reading the signing secret: HTTP ${secret.status} ${secret.text}`);
  return { userId: user.id, assistantId: assistant.id, secret: secret.body.data.secret };
}

export interface PostCallProducerDeps {
  knex: Knex;
  logger: Logger;
  config: Config;
  providers: Pick<Providers, 'fetch' | 'secrets'>;
  temporal: TemporalClient;
}

export interface EndedCall {
  callId: number;
  endedAt: number;
}

const CONVERSATION = [
  { role: 'assistant' as const, text: 'Hello, this is Parley calling about your appointment.', fromMs: 300, toMs: 3200 },
  { role: 'user' as const, text: 'Yes, Thursday at ten works for me.', fromMs: 4000, toMs: 6100 },
  { role: 'assistant' as const, text: 'Booked for Thursday at ten. Goodbye!', fromMs: 6900, toMs: 9400 },
];

/**
 * Makes one call end now and queues its post-call webhook: a finished call's row (module comment), then the
 * worker's `queuePostCallWebhook` (which makes the first attempt) and, when that attempt failed in a way worth
 * retrying, the delivery workflow's start.
 */
export function postCallProducer(deps: PostCallProducerDeps, account: WebhookAccount) {
  const { knex } = deps;
  // Only this activity is called here; the retries are the worker's.
  const activities = createWebhookActivities(deps);
  let sequence = 0;

  return async function endCallAndQueueWebhook(): Promise<EndedCall> {
    const number = sequence++;
    const endedAt = new Date();
    const answeredAt = new Date(endedAt.getTime() - 42_000);
    const turns = spokenTurns(answeredAt, CONVERSATION);
    const [row] = await knex('calls').insert({
      userId: account.userId,
      assistantId: account.assistantId,
      assistantName: 'Webhook bench',
      type: 'outbound',
      status: 'ended_by_customer',
      endReason: 'customer_hangup',
      clientPhoneNumber: `+1555${String(number).padStart(7, '0')}`,
      assistantPhoneNumber: '+15550000000',
      variables: JSON.stringify({ customer_name: `Customer ${number}` }),
      turns: JSON.stringify(turns),
      transcript: callTranscript(turns),
      evaluation: JSON.stringify({ status: true, summary: 'Appointment booked for Thursday at ten.' }),
      duration: 42,
      maxSeconds: 600,
      totalCostMicros: 70_000,
      answeredBy: 'human',
      createdAt: new Date(answeredAt.getTime() - 8_000),
      answeredAt,
      endedAt,
      updatedAt: endedAt,
    }, ['id']);
    const callId = Number(row?.id);
    const queued = await activities.queuePostCallWebhook({ callId });
    if (queued.outcome !== 'queued') throw new Error(`call ${callId}: the post-call webhook was not queued (${queued.reason})`);
    // As `continueWebhookDelivery` at the end of callLifecycle: a workflow only for the retries.
    if (queued.first?.outcome === 'retry') await startWebhookDelivery(deps.temporal, queued, undefined, { attempts: 1, delayMs: queued.first.delayMs });
    return { callId, endedAt: endedAt.getTime() };
  };
}
