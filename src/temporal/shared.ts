/**
 * What workflows, activities and their starters share: workflow type names and the shapes that cross
 * between them. A leaf module (it imports only types), so deterministic workflow code may import it too.
 */
import type { DeliveryPolicy } from '../webhooks/policy.ts';

/** Workflow type names, as the API starts them: by name, so the API process never loads workflow code. */
export const workflowTypes = {
  selfCheck: 'platformSelfCheckWorkflow',
  documentIngestion: 'documentIngestionWorkflow',
  callLifecycle: 'callLifecycleWorkflow',
  phoneNumberSubscription: 'phoneNumberSubscriptionWorkflow',
  campaign: 'campaignWorkflow',
  webhookDelivery: 'webhookDeliveryWorkflow',
  conversationInactivity: 'conversationInactivityWorkflow',
} as const;

export interface SelfCheckResult {
  checkId: string;
  completedAt: string;
}

/** What `progressQuery` answers while a document is ingested. */
export interface IngestionProgress {
  step: 'acquiring' | 'extracting' | 'chunking' | 'embedding' | 'finishing' | 'active' | 'failed' | 'deleted';
  /** Pages fetched, or 1 for a file. */
  sources: number;
  /** Pages skipped (refused, not HTML, robots.txt, errors). */
  skipped: number;
  sections: number;
  chunks: number;
  embedded: number;
  error?: string;
}

export interface DocumentIngestionResult {
  status: 'active' | 'failed' | 'deleted';
  error?: string;
}

/** The signals a call's lifecycle workflow takes, by name: the media gateway's and the API's. */
export const callSignals = {
  /** The media session connected, or the callee answered: `CallAnsweredSignal`. */
  callAnswered: 'callAnswered',
  /** The media session ended: `CallEndedSignal`. */
  callEnded: 'callEnded',
  /** Someone asks for the call to end (the call is deleted while live, an operator): `EndCallSignal`. */
  endCall: 'endCall',
  /** The carrier's word on a phone call (its status callbacks): `CarrierStatusSignal`. */
  carrierStatus: 'carrierStatus',
  /** Who answered an outbound phone call, as the voice engine or the carrier judged it: `AnsweredBySignal`. */
  answeredBy: 'answeredBy',
} as const;

/** A phone call's status as carriers report it (Twilio's `CallStatus` values; the sandbox carrier's too). */
export type CarrierCallStatus = 'queued' | 'initiated' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'no-answer' | 'failed' | 'canceled';

/** The carrier's statuses after which a call is over at the carrier. */
export const finalCarrierStatuses: readonly CarrierCallStatus[] = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

export interface CarrierStatusSignal {
  status: CarrierCallStatus;
  /** ISO 8601: when the carrier saw it. */
  at: string;
}

/**
 * A verdict on who answered (the contract's `answered_by`): from the voice engine's own detector (`engine`), or
 * from the carrier's answering-machine detection (`carrier`, Twilio's AnsweredBy), which is preferred when it
 * is sure.
 */
export interface AnsweredBySignal {
  answeredBy: 'human' | 'machine' | 'unknown';
  source: 'engine' | 'carrier';
  /** ISO 8601. */
  at: string;
}

export interface CallAnsweredSignal {
  /** ISO 8601. */
  at: string;
}

/**
 * Why the media session ended, in the engine's words: `customer_hangup`, `assistant_end_call`, `max_duration`,
 * `silence_timeout`, `balance_exhausted`, `voicemail`, `error`, `media_lost`.
 */
export interface CallEndedSignal {
  reason: string;
  /** ISO 8601. */
  at: string;
}

export interface EndCallSignal {
  reason: string;
}

/**
 * A call's lifecycle takes the call's id and nothing else the call holds (the rest is read by its activities).
 * `timing` shortens the waits for tests; production starts never set it.
 */
export interface CallLifecycleInput {
  callId: number;
  timing?: Partial<CallLifecycleTiming>;
  /** A campaign's call: the campaign's workflow (`campaign-<id>`, whichever run is current) is told when it ended and finished. */
  campaignId?: number;
  /** Handed to the post-call webhook's delivery, to shorten its waits in tests. */
  webhookPolicy?: Partial<DeliveryPolicy>;
}

export interface CallLifecycleTiming {
  /** How long a created call may take to connect (a web call: the browser opens its media socket). */
  connectTimeoutSeconds: number;
  /** How long a dialled phone call may ring before it is given up as `no-answer`. */
  ringTimeoutSeconds: number;
  /** How long past the call's time limit the media session gets to report its end before it is hung up. */
  graceSeconds: number;
  /** How long a hung-up session gets to report its end before the call is ended without it. */
  hangupWaitSeconds: number;
}

export interface CallLifecycleResult {
  /** The call's final status (the contract's), or `deleted` when the call's record went away mid-call. */
  status: string;
  reason: string;
}

/** What `callPhaseQuery` answers: where the call's lifecycle is. */
export type CallPhase = 'preparing' | 'dialing' | 'connecting' | 'in-progress' | 'ending' | 'finalizing' | 'evaluating' | 'done';

/** The signals a campaign's workflow takes, by name; but for its calls' none carries a payload (the campaign's row says the rest). */
export const campaignSignals = {
  /** The campaign was started (again): dial, even if a stop was asked before. */
  resume: 'resume',
  /** The campaign was stopped: end the calls in progress politely, dial nothing new. */
  stop: 'stop',
  /** Leads were added: look for due leads now. */
  leadsAdded: 'leadsAdded',
  /** The campaign's settings changed: read them again now. */
  settingsChanged: 'settingsChanged',
  /** A call of the campaign ended and was billed, and is being evaluated: its place is free (`CampaignCallSignal`). */
  callEnded: 'callEnded',
  /** A call of the campaign finished (ended, billed, evaluated): its lead can be settled (`CampaignCallSignal`). */
  callFinished: 'callFinished',
} as const;

export interface CampaignCallSignal {
  callId: number;
}

/**
 * A campaign's workflow takes the campaign's id; its leads and settings stay in the database. `dialsPerRun`
 * bounds each run's history (tests lower it); `noSlotWaitMs` is how long a due lead waits for a free slot of
 * the account before it is tried again when no call of the campaign ends first.
 */
export interface CampaignInput {
  campaignId: number;
  dialsPerRun?: number;
  noSlotWaitMs?: number;
  /** Handed to each call's lifecycle, to shorten its waits in tests (a ring that is never answered); production starts never set it. */
  callTiming?: Partial<CallLifecycleTiming>;
  /**
   * What a run hands the run it continues as: the calls still in progress, which keep their places and tell
   * the new run when they end and finish, the ended calls still evaluated, and the finished calls whose leads
   * it had not settled yet.
   */
  carried?: CampaignCarry;
}

/** The calls a run follows: holding places, ended (places free) but still evaluated, and finished but not settled. */
export interface CampaignCarry {
  following: number[];
  ended: number[];
  toSettle: number[];
}

/** What the campaign's `progress` query answers: this run's view. */
export interface CampaignRunProgress {
  phase: 'starting' | 'dialing' | 'waiting-for-window' | 'waiting' | 'stopping' | 'done';
  /** The calls of the campaign this run is following now. */
  callsInFlight: number[];
  /** Calls placed by this run (a continued run starts again from 0). */
  dialed: number;
  /** ISO 8601: when the window opens, while the run sleeps until then. */
  windowOpensAt?: string;
}

/** A lead due for its next call, as a round found it: `attempts` is its count of calls before this one. */
export interface DueLead {
  leadId: number;
  attempts: number;
}

/**
 * What a campaign's round reads from the database: the campaign (null once deleted), whether its calling
 * window is open now (the activity's clock decides, so the workflow stays free of time zones), the leads
 * due now (at most the free places), when the next waiting lead falls due, and how many leads are not done.
 */
export interface CampaignRound {
  campaign: { status: string; maxCallsInParallel: number; markCompleteWhenNoLeads: boolean } | null;
  /** ISO 8601 while the window is closed: when it opens next; null inside the window. */
  windowOpensAt: string | null;
  /** True when the window is closed and no allowed day ever opens it. */
  windowNeverOpens: boolean;
  due: DueLead[];
  /** ISO 8601: the earliest scheduled retry or contact not due yet; null when there is none. */
  nextDueAt: string | null;
  /** Leads still to call or being called (neither completed, nor out of retries, nor blacklisted). */
  open: number;
  /** How the round settled the leads of the calls it was given, for the workflow's history. */
  settled: LeadSettlement[];
  /** Followed calls that ended long ago without their workflow saying so: finished all the same. */
  overdue: number[];
}

/** How a call settled its lead. */
export interface LeadSettlement {
  leadId: number;
  status: string;
  reason: string;
}

/** How placing a lead's call went: placed (its call row created, a slot taken), no free slot, nothing to place, or the campaign cannot dial. */
export type PlacedLeadCall =
  | { outcome: 'placed'; callId: number; userId: number; assistantId: number }
  | { outcome: 'no-slot' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'halt'; reason: string };

export interface CampaignResult {
  /** Why the run ended: stopped, every lead done (`completed`), or the campaign deleted. */
  reason: 'stopped' | 'completed' | 'deleted';
}

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
  /** A message of the conversation was stored: its quiet period starts again (`MessageStoredSignal`). */
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

/** The conversation-ended webhook of a quiet period: queued as a delivery (its first attempt made), or not sent and why. */
export type QueuedConversationEndedWebhook =
  | QueuedWebhook
  | { outcome: 'skipped'; reason: 'webhook_off' | 'sent_before' | 'reopened' | 'deleted' };

/** The signals a number's subscription workflow takes, by name. */
export const subscriptionSignals = {
  /** The owner released the number: it stays until the paid period ends. */
  releaseRequested: 'releaseRequested',
  /** The owner changed the default payment method: a past-due renewal is tried again now. */
  paymentMethodUpdated: 'paymentMethodUpdated',
  /** The provider's webhook settled a charge that was processing: `PaymentSettledSignal`. */
  paymentSettled: 'paymentSettled',
} as const;

export interface PaymentSettledSignal {
  /** The subscription period the charge pays for (its metadata says). */
  period: number;
}

/**
 * A number's subscription takes the number's id; the rest is read by its activities. `retryDelaysMs` are the
 * waits after a failed renewal (the starter takes them from the billing rules; tests shorten them).
 */
export interface PhoneNumberSubscriptionInput {
  phoneNumberId: number;
  /** Set by the purchase: provision the number and charge its first period before anything else. */
  purchase?: boolean;
  retryDelaysMs: number[];
  /** How long a processing charge may wait for its webhook before the provider is asked directly. */
  settleWaitMs?: number;
}

/** What `subscriptionQuery` answers. */
export interface SubscriptionProgress {
  status: 'active' | 'past_due' | 'released';
  /** The paid period (1 is the month bought at purchase) and when it ends (ISO 8601). */
  period: number;
  periodEnd: string;
  releaseRequested: boolean;
  /** Renewal attempts failed in a row. */
  failedAttempts: number;
  nextAttemptAt?: string;
  lastFailure?: string;
}

/** A renewal charge as its activity reports it. */
export type RenewalOutcome =
  | { outcome: 'paid'; period: number; periodEnd: string }
  /** Accepted by the provider, to be confirmed by its webhook (`paymentSettled`) or a later look. */
  | { outcome: 'processing' }
  | { outcome: 'failed'; reason: string };

/** How a purchase ended, as the purchase request waits for it (`purchaseUpdate`). */
export type PurchaseOutcome = { outcome: 'purchased' } | { outcome: 'payment_failed'; reason: string } | { outcome: 'provider_failed'; reason: string };

export interface PhoneNumberSubscriptionResult {
  /**
   * Why the subscription ended: its owner released the number, a renewal was never paid, its record is
   * gone, or its purchase did not go through.
   */
  reason: 'requested' | 'payment_failed' | 'deleted' | 'purchase_failed';
}

/**
 * Failure types of what retrying cannot fix: an activity raises a non-retryable `ApplicationFailure` of one
 * of these types (the stable error codes of lib/errors.ts), and every workflow's retry policy lists them all.
 * `rejected`: the input cannot be processed (a corrupt file, a page without text); `not_found`: the record
 * the work is for is gone.
 */
export const nonRetryableErrorTypes = ['rejected', 'not_found', 'validation', 'unprocessable', 'insufficient_balance', 'call_unaffordable', 'payment_required', 'plan_limit', 'conflict', 'forbidden'];
