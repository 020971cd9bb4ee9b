import type { Knex } from 'knex';
import { recordEntry } from '../../billing/ledger.ts';
import { smsSegments } from '../../billing/sms-pricing.ts';
import type { Logger } from '../../logger.ts';
import { HELD_STATUSES } from '../phone-numbers/model.ts';
import type { SmsStatus } from './model.ts';

/**
 * How far along each status of an outbound message is. A carrier's callbacks can arrive out of order (`sent`
 * after `delivered`): a message only moves forward, and the three final statuses never replace one another.
 */
const progress: Partial<Record<SmsStatus, number>> = { pending: 0, queued: 1, sending: 2, sent: 3, delivered: 4, undelivered: 4, failed: 4 };

/** Twilio's statuses before `queued` (a messaging service accepted it, or holds it for later) read as `queued`. */
const carrierWords: Record<string, SmsStatus> = {
  accepted: 'queued', scheduled: 'queued', queued: 'queued', sending: 'sending', sent: 'sent', delivered: 'delivered', undelivered: 'undelivered', failed: 'failed',
};

export interface MessageStatusReport {
  /** The message as Parley named it to the carrier (its status callback's `sms_id`); undefined when not named. */
  smsId: number | undefined;
  /** The carrier's id of the message (Twilio's MessageSid); undefined when the carrier never took it. */
  providerMessageId?: string | undefined;
  /** The carrier's word (Twilio's MessageStatus). */
  status: string;
  /** The carrier's error code, on a message that failed or was not delivered. */
  errorCode?: string | undefined;
  /** Why, when Parley knows it in words (the carrier refused the message outright). */
  errorMessage?: string | undefined;
}

/**
 * A carrier's word on one of the messages Parley sent: the carrier's id is recorded, the status moves forward,
 * and a message that `failed` (it never left the carrier, which charges nothing for it) is refunded, once.
 * An `undelivered` message went out and stays paid for, as carriers charge for it. A status Parley does not
 * know, or a message that is gone, is logged and dropped. Answers the status the message is in afterwards.
 */
export async function recordMessageStatus(deps: { knex: Knex; logger: Logger }, report: MessageStatusReport): Promise<SmsStatus | undefined> {
  const { knex, logger } = deps;
  const status = carrierWords[report.status];
  if (!status) {
    logger.warn({ smsId: report.smsId, status: report.status }, 'a message status Parley does not know: dropped');
    return undefined;
  }
  const which = report.smsId !== undefined ? { id: report.smsId } : report.providerMessageId ? { providerMessageId: report.providerMessageId } : undefined;
  if (!which) return undefined;
  const earlier = Object.entries(progress).filter(([, rank]) => rank < progress[status]!).map(([name]) => name);
  return knex.transaction(async (trx) => {
    const found = await trx('sms_messages')
      .where(which)
      .where({ direction: 'outbound' })
      .forUpdate()
      .first<{ id: number; userId: number; status: SmsStatus; costMicros: number; chargeKey: string | null } | undefined>('id', 'userId', 'status', 'costMicros', 'chargeKey');
    if (!found) {
      logger.info({ smsId: report.smsId, providerMessageId: report.providerMessageId, status }, 'a message status for a message that is gone');
      return undefined;
    }
    const moved = earlier.includes(found.status);
    const refund = moved && status === 'failed' && found.chargeKey !== null && found.costMicros > 0;
    if (refund) {
      await recordEntry(trx, {
        userId: found.userId,
        amountMicros: found.costMicros,
        kind: 'sms_refund',
        reference: `sms:${found.id}`,
        description: 'Refund: the SMS was not sent',
        idempotencyKey: `refund:${found.chargeKey!}`,
      });
    }
    await trx('sms_messages').where({ id: found.id }).update({
      ...(report.providerMessageId ? { providerMessageId: trx.raw('coalesce(provider_message_id, ?)', [report.providerMessageId]) } : {}),
      ...(moved ? { status, errorCode: report.errorCode ?? null, errorMessage: report.errorMessage ?? null } : {}),
      ...(refund ? { costMicros: 0 } : {}),
      updatedAt: trx.fn.now(),
    });
    return moved ? status : found.status;
  });
}

/** TwiML that does nothing: Parley stores a message and does not answer it. */
export const EMPTY_TWIML = '<?xml version="1.0" encoding="UTF-8"?><Response/>';

/**
 * A text to one of the numbers Parley holds (the carrier's messaging webhook): stored as an inbound message of
 * the number's owner, once however often the carrier delivers it. A number nobody holds is logged and dropped.
 */
export async function receiveMessage(
  deps: { knex: Knex; logger: Logger; provider: string },
  message: { providerMessageId: string; from: string; to: string; body: string },
): Promise<void> {
  const { knex, logger } = deps;
  const number = await knex('phone_numbers')
    .where({ phoneNumber: message.to })
    .whereIn('status', HELD_STATUSES)
    .first<{ id: number; userId: number } | undefined>('id', 'userId');
  if (!number) {
    logger.info({ providerMessageId: message.providerMessageId }, 'a message to a number nobody holds: dropped');
    return;
  }
  const { encoding, segments } = smsSegments(message.body);
  await knex('sms_messages')
    .insert({
      userId: number.userId,
      phoneNumberId: number.id,
      direction: 'inbound',
      fromNumber: message.from,
      toNumber: message.to,
      body: message.body,
      encoding,
      segments,
      status: 'received',
      provider: deps.provider,
      providerMessageId: message.providerMessageId,
    })
    // The carrier delivers a webhook again when its first answer was lost: the message is stored once.
    .onConflict()
    .ignore();
}
