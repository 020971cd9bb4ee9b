/** What the webhook delivery and conversation inactivity workflows share with their starters and activities. A leaf module. */
import type { DeliveryPolicy } from '../../webhooks/policy.ts';

/**
 * A webhook delivery's workflow (`webhook-<deliveryId>`) takes the delivery's id; the event, its URL and its
 * attempts are rows (src/webhooks/deliveries.ts). `policy` shortens the waits in tests; production starts never
 * set it. `after` is set when the activity that queued the event made the first attempt itself and it failed
 * in a way worth retrying: the workflow waits `delayMs`, then makes attempt `attempts + 1`.
 */
export interface WebhookDeliveryInput {
  deliveryId: number;
  policy?: Partial<DeliveryPolicy>;
  after?: { attempts: number; delayMs: number };
}

/** The signals a webhook delivery's workflow takes, by name. */
export const webhookSignals = {
  /**
   * Another delivery of the account to the same URL was just delivered: the receiver is back, so the wait before
   * the next attempt ends now (the attempt is the policy's next, numbered as it would have been).
   */
  retryNow: 'retryNow',
} as const;

/** How a webhook delivery ended (the delivery log's status). */
export interface WebhookDeliveryResult {
  status: 'delivered' | 'failed' | 'dead' | 'cancelled';
  attempts: number;
}

/**
 * How one attempt went, as its activity stored it: `retry` after `delayMs` (the policy's wait, or the
 * receiver's Retry-After); anything else ends the delivery.
 */
export type WebhookAttemptOutcome =
  | { outcome: 'delivered' | 'failed' | 'dead' | 'cancelled' }
  | { outcome: 'retry'; delayMs: number };

/**
 * An event queued by the activity that also made its first attempt: how that attempt went (`first`), so that
 * the caller starts the delivery's workflow only for the retries. A result stored by a worker from before the
 * first attempt was made inline has no `first`: its delivery's workflow makes every attempt.
 */
export interface QueuedWebhook {
  outcome: 'queued';
  deliveryId: number;
  eventId: string;
  userId: number;
  assistantId: number;
  first?: WebhookAttemptOutcome;
}

/** The post-call webhook of a call: queued as a delivery (its first attempt made), or not sent and why. */
export type QueuedPostCallWebhook =
  | QueuedWebhook
  | { outcome: 'skipped'; reason: 'webhook_off' | 'not_completed' | 'deleted' };

/** The signals a conversation's inactivity workflow takes, by name. */
export const conversationSignals = {
  /**
   * A message of the conversation was stored and found no timer running (`MessageStoredSignal`): sent with the
   * start, or to the run that is ending the conversation, which then waits out another period.
   */
  messageStored: 'messageStored',
} as const;

export interface MessageStoredSignal {
  /** How long the conversation may now stay quiet before it ends: the assistant's `conversation_inactivity_timeout`. */
  timeoutMs: number;
}

/** A conversation's inactivity workflow (`conversation-<uuid>`) takes the conversation's id; its messages reset it by signal. */
export interface ConversationInactivityInput {
  conversationId: number;
  /** Set by a run continued as new: a quiet period of this length has just started. */
  carriedTimeoutMs?: number;
  /**
   * Started with the timeout as its start delay (starters.ts): its first wait is over when it first runs. Runs
   * started before that have no such field and sleep first.
   */
  startDelayed?: boolean;
}

export interface ConversationInactivityResult {
  /** Quiet periods that ended the conversation in this run (a message during the end starts another). */
  periods: number;
  /** The conversation-ended webhook's deliveries this run queued. */
  deliveries: number[];
}

/**
 * A conversation marked ended after its quiet period: whether the assistant's conversation-ended webhook is on
 * (then it is evaluated, when the assistant wants that, and the webhook is queued), or that it is gone.
 */
export type EndedConversation =
  | { outcome: 'ended'; webhook: boolean; evaluate: boolean }
  | { outcome: 'gone' };

/**
 * What the inactivity timer finds when it wakes (`endQuietConversation`): the conversation quiet for its
 * assistant's timeout since its last message, and now ended; a message came since, and the period ends
 * `remainingMs` from now; or it was ended after its last message already, by an earlier wake of the same run.
 */
export type QuietCheck =
  | EndedConversation
  | { outcome: 'active'; remainingMs: number }
  | { outcome: 'already_ended' };

/** The conversation-ended webhook of a quiet period: queued as a delivery (its first attempt made), or not sent and why. */
export type QueuedConversationEndedWebhook =
  | QueuedWebhook
  | { outcome: 'skipped'; reason: 'webhook_off' | 'sent_before' | 'reopened' | 'deleted' };
