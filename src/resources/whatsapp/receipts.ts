import type { Knex } from 'knex';
import { recordEntry } from '../../billing/ledger.ts';
import { UnprocessableError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import { recordWebhookEvent } from '../../webhooks/deliveries.ts';
import { RECEIPT_STATUSES, readReceiptPayload, type ReceiptStatus } from '../../webhooks/read-receipt.ts';
import type { WhatsAppSender, WhatsAppStatus } from './model.ts';
import { findSender } from './senders.ts';

/** A delivery recorded for the delivery workflow to send. */
export interface QueuedDelivery {
  deliveryId: number;
  userId: number;
  assistantId: number;
}

export interface ReceiptDeps {
  knex: Knex;
  logger: Logger;
  now: () => Date;
  /** Starts the delivery of a read receipt (its workflow, with the W3 policy). */
  deliverReceipt: (delivery: QueuedDelivery) => Promise<void>;
}

/** How far along each status is: a message only moves forward, and the final ones never replace one another. */
const rank: Record<string, number> = { pending: 0, queued: 1, sent: 2, delivered: 3, read: 4, undelivered: 4, failed: 4 };
const carrierWords: Record<string, WhatsAppStatus> = {
  accepted: 'queued', scheduled: 'queued', queued: 'queued', sending: 'queued', sent: 'sent', delivered: 'delivered', read: 'read', undelivered: 'undelivered', failed: 'failed',
};

export interface StatusReport {
  whatsappMessageId: number | undefined;
  providerMessageId: string;
  status: string;
  errorCode?: string | undefined;
  /** The carrier's time of the change, when it says (Twilio's RawDlrDoneDate or Timestamp). */
  providerTimestamp?: string | undefined;
}

interface MessageRow {
  id: number;
  userId: number;
  senderId: number | null;
  conversationId: number | null;
  fromNumber: string;
  toNumber: string;
  status: WhatsAppStatus;
  costMicros: number;
  providerMessageId: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/**
 * A carrier's word on one of the WhatsApp messages Parley sent: the status moves forward (a late `delivered`
 * after `read` changes nothing), a `failed` message is refunded once, and each change the sender's read-receipt
 * webhook reports (sent, delivered, read, failed, undelivered) is queued to it, signed with the sender's secret.
 */
export async function recordWhatsAppStatus(deps: ReceiptDeps, report: StatusReport): Promise<void> {
  const { knex } = deps;
  const status = carrierWords[report.status];
  if (!status) {
    deps.logger.warn({ whatsappMessageId: report.whatsappMessageId, status: report.status }, 'a WhatsApp status Parley does not know: dropped');
    return;
  }
  const moved = await knex.transaction(async (trx) => {
    const found = await trx('whatsapp_messages').where(report.whatsappMessageId !== undefined ? { id: report.whatsappMessageId } : { providerMessageId: report.providerMessageId })
      .where({ direction: 'outbound' }).forUpdate().first<MessageRow | undefined>();
    if (!found || rank[status]! <= rank[found.status]!) return undefined;
    const refund = status === 'failed' && found.costMicros > 0;
    if (refund) {
      await recordEntry(trx, {
        userId: found.userId, amountMicros: found.costMicros, kind: 'whatsapp_refund', reference: `whatsapp:${found.id}`,
        description: 'Refund: the WhatsApp message was not sent', idempotencyKey: `refund:whatsapp-${found.id}`,
      });
    }
    const changes = { status, errorCode: report.errorCode ?? null, errorMessage: report.errorCode ? `Carrier error ${report.errorCode}` : null };
    await trx('whatsapp_messages').where({ id: found.id }).update({
      ...changes, providerMessageId: trx.raw('coalesce(provider_message_id, ?)', [report.providerMessageId]), ...(refund ? { costMicros: 0 } : {}), updatedAt: trx.fn.now(),
    });
    return { ...found, ...changes, providerMessageId: found.providerMessageId ?? report.providerMessageId };
  });
  if (!moved || moved.senderId === null || !(RECEIPT_STATUSES as readonly string[]).includes(status)) return;
  const sender = await knex('whatsapp_senders').where({ id: moved.senderId }).first<WhatsAppSender | undefined>();
  if (!sender?.webhookUrl) return;
  const queued = await queueReceipt(deps, sender, { ...moved, status: status as ReceiptStatus }, report.providerTimestamp ?? null);
  await deps.deliverReceipt(queued);
}

/** Records a read receipt of `message` for delivery to the sender's webhook URL. */
async function queueReceipt(
  deps: ReceiptDeps, sender: WhatsAppSender, message: Omit<MessageRow, 'status'> & { status: ReceiptStatus }, providerTimestamp: string | null, test = false,
): Promise<QueuedDelivery> {
  const { knex } = deps;
  const conversation = message.conversationId === null ? undefined
    : await knex('conversations').where({ id: message.conversationId }).first<{ uuid: string } | undefined>('uuid');
  const assistant = await knex('assistants').where({ id: sender.assistantId }).first<{ uuid: string }>('uuid');
  const payload = readReceiptPayload({
    message, conversationUuid: conversation?.uuid ?? null, assistantUuid: assistant.uuid,
    sender: { id: sender.id, phoneNumber: sender.phoneNumber, displayName: sender.displayName }, at: deps.now(), providerTimestamp, test,
  });
  const recorded = await recordWebhookEvent(knex, {
    userId: sender.userId, assistantId: sender.assistantId, conversationId: message.conversationId, whatsappSenderId: sender.id,
    kind: 'whatsapp.message_status', url: sender.webhookUrl!, payload,
  });
  return { deliveryId: recorded.deliveryId, userId: sender.userId, assistantId: sender.assistantId };
}

/**
 * A test read receipt to the sender's webhook (Parley's extension): a `read` status of the sender's latest
 * message, or of a made-up one when it sent none, with `test: true`. A sender without a webhook URL is 422.
 */
export async function sendTestReceipt(deps: ReceiptDeps, userId: number, senderId: number): Promise<QueuedDelivery> {
  const sender = await findSender(deps.knex, userId, senderId);
  if (!sender.webhookUrl) throw new UnprocessableError('The sender has no webhook URL', { errorCode: 'WEBHOOK_NOT_CONFIGURED' });
  const latest = await deps.knex('whatsapp_messages').where({ senderId, direction: 'outbound' }).orderBy('id', 'desc').first<MessageRow | undefined>();
  const message = latest ?? {
    id: 0, userId, senderId, conversationId: null, fromNumber: sender.phoneNumber, toNumber: sender.phoneNumber, costMicros: 0, providerMessageId: null, errorCode: null, errorMessage: null,
  };
  const queued = await queueReceipt(deps, sender, { ...message, status: 'read', errorCode: null, errorMessage: null }, null, true);
  await deps.deliverReceipt(queued);
  return queued;
}
