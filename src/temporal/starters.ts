import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type WorkflowStartOptions } from '@temporalio/client';
import type { Workflow } from '@temporalio/common';
import type {
  callLifecycleWorkflow, campaignWorkflow, conversationInactivityWorkflow, documentIngestionWorkflow, platformSelfCheckWorkflow, webhookDeliveryWorkflow,
} from '../../workflows/index.ts';
import type { DeliveryPolicy } from '../webhooks/policy.ts';
import type { Logger } from '../logger.ts';
import type { TemporalClient } from './client.ts';
import { searchAttributes, workflowIds } from './names.ts';
import {
  campaignSignals, conversationSignals, subscriptionSignals, workflowTypes, type CampaignInput, type ConversationInactivityInput, type MessageStoredSignal, type PaymentSettledSignal, type PhoneNumberSubscriptionInput, type PurchaseOutcome, type SelfCheckResult, type WebhookDeliveryInput,
} from './shared.ts';

/**
 * Starts a workflow, or finds the run already started under its id (a second start of the
 * same record, a retried request): that run stands, and the caller goes on as if it had started it. With
 * `duplicate`, finding one is logged with the run it found.
 */
async function startOrFind<T extends Workflow>(
  temporal: TemporalClient,
  workflowType: string,
  options: WorkflowStartOptions<T>,
  duplicate?: { logger: Logger; message: string },
): Promise<void> {
  try {
    await temporal.client.workflow.start<T>(workflowType, options);
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    if (!duplicate) return;
    const running = await temporal.client.workflow.getHandle(options.workflowId).describe().catch(() => undefined);
    duplicate.logger.warn({ workflowId: options.workflowId, runId: running?.runId }, duplicate.message);
  }
}

/** Tells a workflow something (a cancel, a signal); one that has finished, or never started, needs nothing. */
async function unlessGone(tell: () => Promise<unknown>): Promise<void> {
  try {
    await tell();
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return;
    throw error;
  }
}

/**
 * Starts the ingestion of a document. A second start of the same document finds the first one running:
 * that is logged with the run it found, and the caller goes on as if it had started it.
 */
export async function startDocumentIngestion(temporal: TemporalClient, document: { id: number; userId: number }, logger: Logger): Promise<void> {
  await startOrFind<typeof documentIngestionWorkflow>(temporal, workflowTypes.documentIngestion, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.document(document.id),
    args: [{ documentId: document.id }],
    typedSearchAttributes: [{ key: searchAttributes.userId, value: document.userId }],
  }, { logger, message: 'document ingestion already running: not started again' });
}

/** Asks a running ingestion to stop; one that has finished, or never started, is fine. */
export async function cancelDocumentIngestion(temporal: TemporalClient, documentId: number): Promise<void> {
  await unlessGone(() => temporal.client.workflow.getHandle(workflowIds.document(documentId)).cancel());
}

/**
 * Starts the lifecycle of a call just created. A second start of the same call finds the first one running,
 * as for documents; the assistant's id goes into the search attributes while the call has one.
 */
export async function startCallLifecycle(
  temporal: TemporalClient,
  call: { id: number; userId: number; assistantId: number | null },
  logger: Logger,
): Promise<void> {
  await startOrFind<typeof callLifecycleWorkflow>(temporal, workflowTypes.callLifecycle, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.call(call.id),
    args: [{ callId: call.id }],
    typedSearchAttributes: [
      { key: searchAttributes.userId, value: call.userId },
      ...(call.assistantId === null ? [] : [{ key: searchAttributes.assistantId, value: call.assistantId }]),
    ],
  }, { logger, message: 'call lifecycle already running: not started again' });
}

/**
 * Starts a campaign's workflow (`campaign-<id>`), or tells the running one that the campaign was started again
 * (it may be ending the calls of a stop): one signal-with-start, so a start and a stop racing leave one run.
 */
export async function startCampaign(temporal: TemporalClient, campaign: { id: number; userId: number; assistantId: number }): Promise<void> {
  await temporal.client.workflow.signalWithStart<typeof campaignWorkflow, []>(workflowTypes.campaign, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.campaign(campaign.id),
    args: [{ campaignId: campaign.id } satisfies CampaignInput],
    signal: campaignSignals.resume,
    signalArgs: [],
    typedSearchAttributes: [
      { key: searchAttributes.userId, value: campaign.userId },
      { key: searchAttributes.campaignId, value: campaign.id },
      { key: searchAttributes.assistantId, value: campaign.assistantId },
    ],
  });
}

/** Tells a campaign's workflow of a stop, new leads or new settings; a campaign not running needs nothing. */
export async function signalCampaign(temporal: TemporalClient, campaignId: number, signal: keyof typeof campaignSignals): Promise<void> {
  await unlessGone(() => temporal.client.workflow.getHandle(workflowIds.campaign(campaignId)).signal(campaignSignals[signal]));
}

/**
 * Starts a bought number's subscription, which provisions and pays for it, and waits for that purchase's
 * outcome. Started again for the same number (a retried request), it waits on the running one.
 */
export async function purchasePhoneNumber(temporal: TemporalClient, number: { id: number; userId: number }, retryDelaysMs: number[]): Promise<PurchaseOutcome> {
  const workflowId = workflowIds.phoneNumber(number.id);
  await startOrFind(temporal, workflowTypes.phoneNumberSubscription, {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ phoneNumberId: number.id, purchase: true, retryDelaysMs } satisfies PhoneNumberSubscriptionInput],
    typedSearchAttributes: [{ key: searchAttributes.userId, value: number.userId }],
  });
  return temporal.client.workflow.getHandle(workflowId).executeUpdate<PurchaseOutcome, []>('purchase');
}

/** Tells a number's subscription of its owner's release, a new payment method, or a settled charge. */
export async function signalSubscription(temporal: TemporalClient, phoneNumberId: number, signal: keyof typeof subscriptionSignals, argument?: PaymentSettledSignal): Promise<void> {
  const handle = temporal.client.workflow.getHandle(workflowIds.phoneNumber(phoneNumberId));
  await (argument === undefined ? handle.signal(subscriptionSignals[signal]) : handle.signal(subscriptionSignals[signal], argument));
}

/**
 * Starts the delivery of a webhook event recorded with `recordWebhookEvent` (or a redelivery), from a process
 * that is not a workflow (the API). A second start of the same delivery finds the first and is not an error.
 * `policy` shortens the waits in tests; `after`, a first attempt made already (WebhookDeliveryInput).
 */
export async function startWebhookDelivery(
  temporal: TemporalClient,
  delivery: { deliveryId: number; userId: number; assistantId: number | null },
  policy?: Partial<DeliveryPolicy>,
  after?: WebhookDeliveryInput['after'],
): Promise<void> {
  await startOrFind<typeof webhookDeliveryWorkflow>(temporal, workflowTypes.webhookDelivery, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.webhookDelivery(delivery.deliveryId),
    args: [{ deliveryId: delivery.deliveryId, ...(policy ? { policy } : {}), ...(after ? { after } : {}) }],
    typedSearchAttributes: [
      { key: searchAttributes.userId, value: delivery.userId },
      ...(delivery.assistantId === null ? [] : [{ key: searchAttributes.assistantId, value: delivery.assistantId }]),
    ],
  });
}

/**
 * Starts a widget or WhatsApp conversation's inactivity timer, called only when a stored message found none
 * running (resources/conversations/quiet-timer.ts): one signal-with-start of `conversation-<uuid>`, which starts a
 * run, or tells the run that is ending the conversation to wait out another period. A new run starts after the
 * timeout (Temporal's start delay) rather than at once to sleep through it: the conversation's start costs the
 * Temporal server and the worker no workflow task and no timer while the chat goes on.
 */
export async function startConversationTimer(
  temporal: TemporalClient,
  conversation: { id: number; uuid: string; userId: number; assistantId: number },
  timeoutMs: number,
): Promise<void> {
  await temporal.client.workflow.signalWithStart<typeof conversationInactivityWorkflow, [MessageStoredSignal]>(workflowTypes.conversationInactivity, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.conversation(conversation.uuid),
    args: [{ conversationId: conversation.id, startDelayed: true } satisfies ConversationInactivityInput],
    startDelay: timeoutMs,
    signal: conversationSignals.messageStored,
    signalArgs: [{ timeoutMs }],
    typedSearchAttributes: [
      { key: searchAttributes.userId, value: conversation.userId },
      { key: searchAttributes.assistantId, value: conversation.assistantId },
    ],
  });
}

/** Runs the self-check workflow through a worker and waits for its answer (readiness with `deep=true`). */
export function runSelfCheck(temporal: TemporalClient, checkId: string): Promise<SelfCheckResult> {
  return temporal.client.workflow.execute<typeof platformSelfCheckWorkflow>(workflowTypes.selfCheck, {
    taskQueue: temporal.taskQueue,
    workflowId: workflowIds.selfCheck(checkId),
    args: [{ checkId }],
    workflowExecutionTimeout: '15 seconds',
  });
}
