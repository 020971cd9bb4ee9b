import { InsufficientBalanceError, ServiceUnavailableError } from '../../lib/errors.ts';
import { toE164 } from '../../lib/phone-numbers.ts';
import { acceptMessage, replyTo, type ConversationDeps } from '../conversations/service.ts';
import { WhatsAppSender } from './model.ts';
import { deliverOutbound, openConversation, type WhatsAppSendDeps } from './send.ts';

export interface InboundDeps extends WhatsAppSendDeps {
  conversations: ConversationDeps;
}

/** How long the assistant may take over a reply: the carrier's webhook waits for it (Twilio gives up after 15 s). */
const REPLY_TIMEOUT_MS = 14_000;

export interface InboundWhatsApp {
  providerMessageId: string;
  /** Twilio's addresses: `whatsapp:+E164`. */
  from: string;
  to: string;
  body: string;
  /** The customer's WhatsApp profile name (Twilio's ProfileName). */
  profileName?: string | undefined;
}

/** Whether a carrier's messaging webhook carries a WhatsApp message rather than a text. */
export function isWhatsApp(from: string): boolean {
  return from.startsWith('whatsapp:');
}

/**
 * A customer's WhatsApp message to a sender: stored once however often the carrier posts it, in the log and in
 * the conversation of (sender, customer), whose 24-hour window it opens again; then, unless a person has taken
 * the conversation over (AI disabled) or the sender is offline, answered by the sender's assistant through the
 * chat engine (charged as a chat message) and the reply sent back. A message to no sender is logged and dropped;
 * one the balance or a missing language model cannot answer stays in the log.
 */
export async function receiveWhatsApp(deps: InboundDeps, message: InboundWhatsApp): Promise<void> {
  const { knex, logger } = deps;
  const senderNumber = message.to.replace(/^whatsapp:/, '');
  const phone = toE164(message.from.replace(/^whatsapp:/, ''));
  const sender = await WhatsAppSender.query(knex).findOne({ phoneNumber: senderNumber });
  if (!sender || !phone) {
    logger.info({ providerMessageId: message.providerMessageId }, 'a WhatsApp message to no sender of Parley\'s: dropped');
    return;
  }
  const conversation = await openConversation(knex, sender, { phone, name: message.profileName || undefined, wroteAt: deps.now() });
  const stored = await knex('whatsapp_messages').insert({
    userId: sender.userId, senderId: sender.id, conversationId: conversation.id, direction: 'inbound', fromNumber: phone, toNumber: sender.phoneNumber,
    body: message.body, status: 'received', provider: deps.telephony.name, providerMessageId: message.providerMessageId,
  }).onConflict('provider_message_id').ignore().returning('id') as unknown[];
  // Posted again (the carrier's first answer was lost): stored and answered the first time.
  if (stored.length === 0) return;

  let turn;
  try {
    turn = await acceptMessage(deps.conversations, conversation.uuid, message.body, { replyFollows: sender.status === 'online' });
  } catch (error) {
    if (!(error instanceof InsufficientBalanceError || error instanceof ServiceUnavailableError)) throw error;
    logger.warn({ conversationId: conversation.id, reason: error.message }, 'a WhatsApp message was not answered');
    return;
  }
  if (!turn.conversation.aiEnabled || sender.status !== 'online') return;
  const { reply } = await replyTo(deps.conversations, turn, AbortSignal.timeout(REPLY_TIMEOUT_MS));
  if (!reply.trim()) return;
  await deliverOutbound(deps, { sender, conversation, to: phone, body: reply, costMicros: 0, human: false });
}
