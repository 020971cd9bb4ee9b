import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { chargeExpression, recordEntry } from '../../billing/ledger.ts';
import { WHATSAPP_FREEFORM_MICROS, WHATSAPP_TEMPLATE_MICROS } from '../../billing/whatsapp-pricing.ts';
import { ForbiddenError, NotFoundError, PaymentRequiredError, RejectedError, ServiceUnavailableError, UnprocessableError, ValidationError } from '../../lib/errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import type { Logger } from '../../logger.ts';
import type { TelephonyProvider, WhatsAppRequest } from '../../providers/telephony/types.ts';
import { CLAIMED_TIMER, MESSAGE_STORED_SET, startClaimedTimer, type QuietTimerDeps } from '../conversations/quiet-timer.ts';
import { WhatsAppTemplate, type WhatsAppSender } from './model.ts';
import { findSender } from './senders.ts';
import { renderTemplate, sessionStatus, templateVariables, type SessionStatus } from './session.ts';

export interface WhatsAppSendDeps {
  knex: Knex;
  telephony: TelephonyProvider;
  logger: Logger;
  /** PUBLIC_URL: where the carrier posts each message's status changes. */
  publicUrl: string;
  now: () => Date;
  afterCharge?: (userId: number) => Promise<void>;
  /** Starts a WhatsApp conversation's inactivity timer when a message a person sent claimed it (W2; conversations/quiet-timer.ts). */
  startQuietTimer?: QuietTimerDeps['startQuietTimer'];
}

const errors = {
  invalidPhone: () => new UnprocessableError('Invalid phone number format', { errorCode: 'INVALID_PHONE' }),
  balance: () => new PaymentRequiredError('Insufficient balance. Please top up your account.', { errorCode: 'INSUFFICIENT_BALANCE' }),
  noCarrier: () => new ServiceUnavailableError('The telephony provider of this deployment does not send WhatsApp messages.', { errorCode: 'PROVIDER_UNAVAILABLE' }),
};

/** The customer's number in E.164, or 422 INVALID_PHONE. */
export function customerNumber(written: string): string {
  const number = toE164(written.replace(/^whatsapp:/, ''));
  if (!number || !/^\+/.test(written.trim().replace(/^whatsapp:/, ''))) throw errors.invalidPhone();
  return number;
}

export interface WhatsAppConversationRow {
  id: number;
  uuid: string;
  assistantId: number;
  customerName: string | null;
  lastCustomerMessageAt: Date | null;
}

/**
 * The conversation of a sender and a customer, made on first use: one statement, so two first messages meet in
 * the same one. A customer's message (`customerWrote`) opens the 24-hour window again; a name given is kept.
 */
export async function openConversation(
  knex: Knex,
  sender: Pick<WhatsAppSender, 'id' | 'userId' | 'assistantId'>,
  customer: { phone: string; name?: string | undefined; wroteAt?: Date },
): Promise<WhatsAppConversationRow> {
  const variables = { customer_phone: customer.phone, ...(customer.name ? { customer_name: customer.name } : {}) };
  const { rows } = await knex.raw<{ rows: WhatsAppConversationRow[] }>(`
    insert into conversations (uuid, user_id, assistant_id, type, variables, whatsapp_sender_id, customer_phone, customer_name, last_customer_message_at)
    values (?, ?, ?, 'whatsapp', ?::jsonb, ?, ?, ?, ?)
    on conflict (whatsapp_sender_id, customer_phone) do update set
      variables = conversations.variables || excluded.variables,
      customer_name = coalesce(excluded.customer_name, conversations.customer_name),
      last_customer_message_at = greatest(excluded.last_customer_message_at, conversations.last_customer_message_at)
    returning id, uuid, assistant_id as "assistantId", customer_name as "customerName", last_customer_message_at as "lastCustomerMessageAt"`,
  [randomUUID(), sender.userId, sender.assistantId, JSON.stringify(variables), sender.id, customer.phone, customer.name ?? null, customer.wroteAt ?? null]);
  return rows[0]!;
}

export async function findConversation(knex: Knex, senderId: number, phone: string): Promise<WhatsAppConversationRow | undefined> {
  return knex('conversations').where({ whatsappSenderId: senderId, customerPhone: phone })
    .first<WhatsAppConversationRow | undefined>('id', 'uuid', 'assistantId', 'customerName', 'lastCustomerMessageAt');
}

export interface OutboundMessage {
  sender: WhatsAppSender;
  conversation: WhatsAppConversationRow;
  to: string;
  body: string;
  costMicros: number;
  template?: { id: number; contentSid: string | null; variables: Record<string, string> };
  /** Written by a person or the API (true), or the assistant's reply (false, already in the history). */
  human: boolean;
}

export interface SentMessage {
  historyId: number | null;
  whatsappMessageId: number;
  providerMessageId: string;
}

/** A stored outbound message, and whether (a person's, in the history) it claimed the conversation's inactivity timer. */
interface StoredOutbound {
  id: number;
  historyId: number | null;
  timer: { claimed: boolean; timeoutMinutes: number };
}

/**
 * Stores the message (in the WhatsApp log and, a person's, in the conversation's history) and charges it, in one
 * transaction; undefined when the balance does not cover it and nothing was written.
 */
async function storeCharged(knex: Knex, message: OutboundMessage, provider: string): Promise<StoredOutbound | undefined> {
  return knex.transaction(async (trx) => {
    const { rows: [next] } = await trx.raw<{ rows: { id: number }[] }>("select nextval(pg_get_serial_sequence('whatsapp_messages', 'id')) as id");
    const id = Number(next!.id);
    if (message.costMicros > 0) {
      const { rows: [charged] } = await trx.raw<{ rows: { entry: number | null }[] }>('select ? as entry', [chargeExpression(trx, {
        userId: message.sender.userId, amountMicros: message.costMicros, kind: 'whatsapp', reference: `whatsapp:${id}`,
        description: `WhatsApp ${message.template ? 'template' : 'message'} to ${message.to}`, idempotencyKey: `whatsapp-${id}`,
      })]);
      if (charged?.entry === null || charged?.entry === undefined) return undefined;
    }
    const history: { id: number }[] = message.human
      ? await trx('conversation_messages').insert({ conversationId: message.conversation.id, role: 'assistant', content: message.body, human: true }, ['id'])
      : [];
    await trx('whatsapp_messages').insert({
      id, userId: message.sender.userId, senderId: message.sender.id, conversationId: message.conversation.id, templateId: message.template?.id ?? null,
      direction: 'outbound', fromNumber: message.sender.phoneNumber, toNumber: message.to, body: message.body, costMicros: message.costMicros,
      status: 'pending', provider,
    });
    // A person's message is one of the history's, which puts the conversation's end off (and may claim its timer).
    const { rows: [counted] } = await trx.raw<{ rows: { claimed: boolean; timeoutMinutes: number }[] }>(`
      update conversations
      set message_count = message_count + ?, total_cost_micros = total_cost_micros + ?, updated_at = now(), ended_at = null
        ${message.human ? `, ${MESSAGE_STORED_SET}` : ''}
      where id = ?
      returning ${message.human ? CLAIMED_TIMER : 'false'} as claimed,
        (select a.conversation_inactivity_timeout from assistants a where a.id = conversations.assistant_id) as "timeoutMinutes"`,
    [message.human ? 1 : 0, message.costMicros, message.conversation.id]);
    return { id, historyId: history[0] ? Number(history[0].id) : null, timer: counted! };
  });
}

/** A message the carrier would not take: marked failed, refunded, and taken out of the history. */
async function undo(knex: Knex, message: OutboundMessage, stored: StoredOutbound, reason: string): Promise<void> {
  await knex.transaction(async (trx) => {
    if (message.costMicros > 0) {
      await recordEntry(trx, {
        userId: message.sender.userId, amountMicros: message.costMicros, kind: 'whatsapp_refund', reference: `whatsapp:${stored.id}`,
        description: 'Refund: the WhatsApp message was not sent', idempotencyKey: `refund:whatsapp-${stored.id}`,
      });
    }
    if (stored.historyId !== null) await trx('conversation_messages').where({ id: stored.historyId }).delete();
    await trx('whatsapp_messages').where({ id: stored.id }).update({ status: 'failed', errorMessage: reason, costMicros: 0, updatedAt: trx.fn.now() });
    await trx('conversations').where({ id: message.conversation.id }).update({
      messageCount: trx.raw(`message_count - ${stored.historyId === null ? 0 : 1}`),
      totalCostMicros: trx.raw('total_cost_micros - ?', [message.costMicros]),
      // A timer the message claimed was never started: the next message claims it again.
      ...(stored.timer.claimed ? { quietTimerAt: null } : {}),
    });
  });
}

/**
 * Charges, stores and hands a message to the carrier. A carrier that refuses it (422 SEND_FAILED) or cannot be
 * reached (503 PROVIDER_UNAVAILABLE) leaves it failed and refunded.
 */
export async function deliverOutbound(deps: WhatsAppSendDeps, message: OutboundMessage): Promise<SentMessage> {
  const carrier = deps.telephony.messages?.sendWhatsApp?.bind(deps.telephony.messages);
  if (!carrier) throw errors.noCarrier();
  const stored = await storeCharged(deps.knex, message, deps.telephony.name);
  if (!stored) throw errors.balance();
  const request: WhatsAppRequest = {
    from: message.sender.phoneNumber,
    to: message.to,
    body: message.body,
    ...(message.template?.contentSid ? { template: { contentSid: message.template.contentSid, variables: message.template.variables } } : {}),
    statusCallbackUrl: `${deps.publicUrl}/api/telephony/${deps.telephony.name}/whatsapp/status?whatsapp_message_id=${stored.id}`,
  };
  let sent: { providerMessageId: string; status: string };
  try {
    sent = await carrier(request);
  } catch (error) {
    const refused = error instanceof RejectedError;
    if (!refused) deps.logger.error({ err: error, whatsappMessageId: stored.id }, 'a WhatsApp message could not be handed to the carrier');
    await undo(deps.knex, message, stored, refused ? error.message : 'The carrier could not be reached.');
    if (refused) throw new UnprocessableError(`The carrier refused the message: ${error.message}`, { errorCode: 'SEND_FAILED' });
    throw new ServiceUnavailableError('The carrier could not be reached. Please try again.', { errorCode: 'PROVIDER_UNAVAILABLE' });
  }
  await deps.knex('whatsapp_messages').where({ id: stored.id }).update({
    providerMessageId: sent.providerMessageId, status: deps.knex.raw("case when status = 'pending' then 'queued' else status end"), updatedAt: deps.knex.fn.now(),
  });
  if (message.costMicros > 0) void deps.afterCharge?.(message.sender.userId);
  if (stored.timer.claimed) {
    const { conversation, sender } = message;
    startClaimedTimer(deps, {
      id: conversation.id, uuid: conversation.uuid, userId: sender.userId, assistantId: conversation.assistantId, inactivityTimeoutMinutes: stored.timer.timeoutMinutes,
    });
  }
  return { historyId: stored.historyId, whatsappMessageId: stored.id, providerMessageId: sent.providerMessageId };
}

export interface TemplateSendRequest {
  senderId: number;
  templateId: number;
  recipientPhone: string;
  recipientName?: string | undefined;
  variables?: Record<string, string> | undefined;
}

/** Sends an approved template to a customer (anchor §12.7 `POST /user/whatsapp/send`), inside the window or not. */
export async function sendTemplate(deps: WhatsAppSendDeps, userId: number, request: TemplateSendRequest) {
  const sender = await findSender(deps.knex, userId, request.senderId);
  const template = await WhatsAppTemplate.query(deps.knex).findOne({ id: request.templateId, senderId: sender.id });
  if (!template) throw new NotFoundError('Template not found', { errorCode: 'TEMPLATE_NOT_FOUND' });
  if (template.status !== 'approved') throw new UnprocessableError(`Template is not approved (it is ${template.status})`, { errorCode: 'TEMPLATE_NOT_APPROVED' });
  const to = customerNumber(request.recipientPhone);
  if (sender.status !== 'online') throw new UnprocessableError('Sender is offline', { errorCode: 'SENDER_OFFLINE' });
  const values = request.variables ?? {};
  const missing = templateVariables(template.bodyText).filter((name) => !values[name]);
  if (missing.length > 0) throw new ValidationError(Object.fromEntries(missing.map((name) => [`variables.${name}`, [`The variables.${name} field is required.`]])));
  const conversation = await openConversation(deps.knex, sender, { phone: to, name: request.recipientName });
  const sent = await deliverOutbound(deps, {
    sender, conversation, to, body: renderTemplate(template.bodyText, values), costMicros: WHATSAPP_TEMPLATE_MICROS, human: true,
    template: { id: template.id, contentSid: template.contentSid, variables: values },
  });
  return { conversation, sent };
}

/**
 * Sends a free-form message (anchor §12.7 `POST /user/whatsapp/send-freeform`): only inside the 24-hour window
 * the customer's last message opened (403 SESSION_EXPIRED otherwise); an offline sender is 503 SENDER_OFFLINE.
 */
export async function sendFreeform(deps: WhatsAppSendDeps, userId: number, request: { senderId: number; recipientPhone: string; message: string }) {
  const sender = await findSender(deps.knex, userId, request.senderId);
  const to = customerNumber(request.recipientPhone);
  if (sender.status !== 'online') throw new ServiceUnavailableError('Sender is offline', { errorCode: 'SENDER_OFFLINE' });
  const existing = await findConversation(deps.knex, sender.id, to);
  const session = sessionStatus(existing?.lastCustomerMessageAt ?? null, deps.now());
  if (!existing || !session.can_send_freeform) {
    throw new ForbiddenError('The 24-hour session window is closed: send an approved template instead.', { errorCode: 'SESSION_EXPIRED' });
  }
  const sent = await deliverOutbound(deps, { sender, conversation: existing, to, body: request.message, costMicros: WHATSAPP_FREEFORM_MICROS, human: true });
  return { conversation: existing, sent, session };
}

/** Where a customer's session stands (anchor §12.7 `GET /user/whatsapp/session-status`). */
export async function sessionOf(deps: Pick<WhatsAppSendDeps, 'knex' | 'now'>, userId: number, senderId: number, recipientPhone: string): Promise<{
  conversation: WhatsAppConversationRow | undefined; session: SessionStatus;
}> {
  const sender = await findSender(deps.knex, userId, senderId);
  const conversation = await findConversation(deps.knex, sender.id, customerNumber(recipientPhone));
  return { conversation, session: sessionStatus(conversation?.lastCustomerMessageAt ?? null, deps.now()) };
}
