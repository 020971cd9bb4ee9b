import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { chargeExpression } from '../../billing/ledger.ts';
import { smsCostMicros, smsSegments } from '../../billing/sms-pricing.ts';
import { describeDialingCountries, dialingCountryList } from '../../calls/dialing-countries.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { BadRequestError, ConflictError, InsufficientBalanceError, ProviderRefusedError, RejectedError, ServiceUnavailableError } from '../../lib/errors.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import type { Logger } from '../../logger.ts';
import type { TelephonyProvider } from '../../providers/telephony/types.ts';
import { PhoneNumber } from '../phone-numbers/model.ts';
import { SmsMessage, type SmsDirection } from './model.ts';
import { recordMessageStatus } from './status.ts';

export interface SmsDeps {
  knex: Knex;
  telephony: TelephonyProvider;
  logger: Logger;
  /** PUBLIC_URL: where the carrier posts each message's status changes. */
  publicUrl: string;
  /** Told, without being awaited, that the user's balance was charged (auto-recharge checks its threshold). */
  afterCharge?: (userId: number) => Promise<void>;
}

/** The texts of `POST /user/sms` (anchor-api.md §11), and Parley's own where the contract has none. */
export const smsTexts = {
  invalidNumber: 'Invalid phone number format',
  insufficientBalance: 'Insufficient balance to send SMS',
  notSmsCapable: 'Phone number is not SMS-capable',
  fromNotFound: 'From number not found',
  failed: 'Failed to send SMS',
  pastDue: "Phone number's subscription is not active. Please update your payment method.",
  unreachable: 'The carrier could not be reached. Please try again.',
  keyReused: 'This Idempotency-Key was already used for another message.',
  keyInFlight: 'A message with this Idempotency-Key is still being sent.',
  noCarrier: 'The telephony provider of this deployment does not send text messages.',
};

export interface SmsRequest {
  /** The id of one of the user's numbers. */
  from: number;
  to: string;
  body: string;
}

/**
 * The recipient in E.164: a number `libphonenumber-js` knows as valid, written with its `+` and country code
 * (spaces, dashes, dots and brackets between the digits are allowed and dropped).
 */
export function recipientNumber(to: string): { number: string; country: string } {
  const written = to.trim().replace(/[\s().-]/g, '');
  const parsed = /^\+[1-9]\d{6,14}$/.test(written) ? parsePhoneNumberFromString(written) : undefined;
  if (!parsed?.isValid() || parsed.number !== written) throw new BadRequestError(smsTexts.invalidNumber);
  return { number: parsed.number, country: parsed.country ?? 'unknown' };
}

/** The sending number: one of the user's, SMS-capable, paid up. */
async function senderOf(knex: Knex, userId: number, id: number): Promise<PhoneNumber> {
  const number = await PhoneNumber.query(knex).modify('held').findOne({ id, userId });
  if (!number) throw new BadRequestError(smsTexts.fromNotFound);
  if (!number.smsCapable) throw new BadRequestError(smsTexts.notSmsCapable);
  if (number.status !== 'active') throw new BadRequestError(smsTexts.pastDue);
  return number;
}

/** A message already sent under the request's key: the same message answers again; another message cannot have it. */
function replay(earlier: SmsMessage, request: SmsRequest, to: string): SmsMessage {
  if (earlier.phoneNumberId !== request.from || earlier.toNumber !== to || earlier.body !== request.body) throw new ConflictError(smsTexts.keyReused);
  if (earlier.status === 'pending') throw new ConflictError(smsTexts.keyInFlight);
  // The carrier never took it: the first answer was the refusal.
  if (earlier.providerMessageId === null) throw new ProviderRefusedError(smsTexts.failed, earlier.errorMessage ?? smsTexts.unreachable);
  return earlier;
}

interface NewMessage {
  userId: number;
  phoneNumberId: number;
  fromNumber: string;
  toNumber: string;
  body: string;
  encoding: string;
  segments: number;
  costMicros: number;
  provider: string;
  idempotencyKey: string | null;
}

/**
 * Stores the message and charges it in one statement: the message exists only if the charge went through, and
 * the charge is the ledger entry of the message's own key (`sms-<id>`, its id drawn first). Undefined: the
 * balance does not cover it, and nothing was written.
 */
async function storeCharged(knex: Knex, message: NewMessage): Promise<number | undefined> {
  const { rows: [next] } = await knex.raw<{ rows: { id: number }[] }>("select nextval(pg_get_serial_sequence('sms_messages', 'id')) as id");
  const id = Number(next!.id);
  const chargeKey = `sms-${id}`;
  const charge = chargeExpression(knex, {
    userId: message.userId,
    amountMicros: message.costMicros,
    kind: 'sms',
    reference: `sms:${id}`,
    description: `SMS to ${message.toNumber}, ${message.segments} segment${message.segments === 1 ? '' : 's'}`,
    idempotencyKey: chargeKey,
  });
  const { rows } = await knex.raw<{ rows: { id: number }[] }>(`
    with charge as (select ? as entry_id)
    insert into sms_messages (id, user_id, phone_number_id, direction, from_number, to_number, body, encoding, segments, cost_micros, status, provider, charge_key, idempotency_key)
    select ?, ?, ?, 'outbound', ?, ?, ?, ?, ?, ?, 'pending', ?, ?, ? from charge where entry_id is not null
    returning id`,
  [charge, id, message.userId, message.phoneNumberId, message.fromNumber, message.toNumber, message.body, message.encoding, message.segments,
    message.costMicros, message.provider, chargeKey, message.idempotencyKey]);
  return rows[0] ? id : undefined;
}

/**
 * Sends a text from one of the user's numbers. The recipient must be E.164 in a country the account calls (its
 * numbers' countries, the toll-fraud guard calls obey too), the sender an SMS-capable number of the user's with
 * its subscription paid; the message is charged by its segments at the plan's price before it goes, and the
 * charge is refunded when the carrier refuses it (answered 500 with the carrier's reason). With an
 * `idempotencyKey` a request sent again answers the first message and charges nothing more.
 */
export async function sendSms(deps: SmsDeps, userId: number, request: SmsRequest, idempotencyKey?: string): Promise<SmsMessage> {
  const { knex } = deps;
  const to = recipientNumber(request.to);
  const sender = await senderOf(knex, userId, request.from);
  const allowed = await dialingCountryList(knex, userId);
  if (!allowed.countries.includes(to.country)) {
    throw new BadRequestError(`SMS to ${to.country} numbers are not allowed for this account: it texts ${describeDialingCountries(allowed)}.`);
  }
  const carrier = deps.telephony.messages;
  if (!carrier) throw new ServiceUnavailableError(smsTexts.noCarrier);
  if (idempotencyKey) {
    const earlier = await SmsMessage.query(knex).findOne({ userId, idempotencyKey });
    if (earlier) return replay(earlier, request, to.number);
  }

  const { encoding, segments } = smsSegments(request.body);
  const plan = await knex('users as u').join('plans as p', 'p.id', 'u.plan_id').where('u.id', userId).first<{ price: number }>('p.sms_price_per_segment_micros as price');
  let id: number | undefined;
  try {
    id = await storeCharged(knex, {
      userId,
      phoneNumberId: sender.id,
      fromNumber: sender.phoneNumber,
      toNumber: to.number,
      body: request.body,
      encoding,
      segments,
      costMicros: smsCostMicros(segments, Number(plan.price)),
      provider: deps.telephony.name,
      idempotencyKey: idempotencyKey ?? null,
    });
  } catch (error) {
    // The same key sent twice at once: the other request stored its message first.
    if (!idempotencyKey || !isUniqueViolation(error, 'sms_messages_idempotency_key')) throw error;
    return replay(await SmsMessage.query(knex).findOne({ userId, idempotencyKey }).throwIfNotFound(), request, to.number);
  }
  if (id === undefined) throw new InsufficientBalanceError(smsTexts.insufficientBalance);

  const statusCallbackUrl = `${deps.publicUrl}/api/telephony/${deps.telephony.name}/messages/status?sms_id=${id}`;
  let sent: { providerMessageId: string; status: string };
  try {
    sent = await carrier.sendSms({ from: sender.phoneNumber, to: to.number, body: request.body, statusCallbackUrl });
  } catch (error) {
    // Refused, or the carrier could not be asked: the message is failed and its charge refunded, by the same
    // rule as a carrier's `failed` callback. (A message a lost answer hides may have gone out: it is not charged.)
    const reason = error instanceof RejectedError ? error.message : smsTexts.unreachable;
    if (!(error instanceof RejectedError)) deps.logger.error({ err: error, smsId: id }, 'a message could not be handed to the carrier');
    await recordMessageStatus(deps, { smsId: id, status: 'failed', errorMessage: reason });
    throw new ProviderRefusedError(smsTexts.failed, reason);
  }
  await recordMessageStatus(deps, { smsId: id, providerMessageId: sent.providerMessageId, status: sent.status });
  void deps.afterCharge?.(userId);
  return SmsMessage.query(knex).findById(id).throwIfNotFound();
}

/** The user's messages, newest first, of one direction or both. */
export async function listMessages(knex: Knex, userId: number, filter: { direction?: SmsDirection }, page: PageRequest): Promise<{ messages: SmsMessage[]; total: number }> {
  const { offset, limit } = pageWindow(page);
  const mine = () => SmsMessage.query(knex).where({ userId }).modify((query) => {
    if (filter.direction) query.where({ direction: filter.direction });
  });
  const [messages, total] = await Promise.all([mine().orderBy('id', 'desc').offset(offset).limit(limit), mine().resultSize()]);
  return { messages, total };
}
