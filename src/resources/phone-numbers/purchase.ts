/**
 * Searching and buying numbers. A search records what it showed the user (an offer, for an hour); a purchase
 * must be of an offer, is held on a `pending` row of the number (one holder per number: two users racing for
 * it, one gets it), and is carried out by the number's subscription workflow, which provisions it and pays
 * its first month, and whose answer the request waits for.
 */
import { isUniqueViolation } from '../../db/errors.ts';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { defaultPaymentMethodId } from '../../billing/payment-customers.ts';
import type { SubscriptionPaymentHandler } from '../../billing/payment-events.ts';
import { retryDelaysMs } from '../../billing/renewals.ts';
import type { SubscriptionPeriod } from '../../config.ts';
import { BadRequestError, PaymentRequiredError, UnprocessableError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import type { PaymentProvider } from '../../providers/payments/types.ts';
import type { AvailableNumber, TelephonyProvider } from '../../providers/telephony/types.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { purchasePhoneNumber, signalSubscription } from '../../temporal/starters.ts';
import { PhoneNumber } from './model.ts';

const OFFER_TTL_MS = 60 * 60 * 1000;
const SEARCH_LIMIT = 20;

export const purchaseTexts = {
  inUse: 'This phone number is already in use.',
  notOffered: 'This phone number is not available for purchase. Please search for available numbers first.',
  noPaymentMethod: 'No payment method found. Please add a payment method to your account.',
  paymentFailed: 'Payment failed. Please update your payment method.',
  unparseable: 'Unable to parse phone number. Please provide a valid E.164 format number.',
  providerFailed: 'Failed to purchase phone number from provider. Please contact support.',
};

export interface PurchaseDeps {
  knex: Knex;
  temporal: TemporalClient;
  telephony: TelephonyProvider;
  payments: PaymentProvider;
  subscriptionPeriod: SubscriptionPeriod;
}

/** Numbers the carrier offers in a country, remembered as the user's offers. */
export async function searchNumbers(deps: Pick<PurchaseDeps, 'knex' | 'telephony'>, userId: number, search: { countryCode: string; contains?: string }): Promise<AvailableNumber[]> {
  const found = await deps.telephony.searchNumbers({ countryCode: search.countryCode, contains: search.contains, limit: SEARCH_LIMIT });
  if (found.length === 0) return found;
  const expiresAt = new Date(Date.now() + OFFER_TTL_MS);
  await deps.knex('phone_number_offers')
    .insert(found.map((number) => ({
      userId, phoneNumber: number.phoneNumber, countryCode: number.countryCode, monthlyPriceMicros: number.monthlyPriceMicros, smsCapable: number.smsCapable, expiresAt,
    })))
    .onConflict(['user_id', 'phone_number'])
    .merge(['country_code', 'monthly_price_micros', 'sms_capable', 'expires_at']);
  return found;
}

/** Buys an offered number; the answer comes once it is provisioned and its first month paid, or why not. */
export async function purchaseNumber(deps: PurchaseDeps, userId: number, requested: string): Promise<PhoneNumber> {
  const parsed = parsePhoneNumberFromString(requested);
  if (!parsed || !parsed.isValid() || parsed.number !== requested.replace(/[\s()-]/g, '')) throw new UnprocessableError(purchaseTexts.unparseable);
  const phoneNumber = parsed.number;
  const offer = await deps.knex('phone_number_offers')
    .where({ userId, phoneNumber })
    .where('expires_at', '>', new Date())
    .first<{ countryCode: string; monthlyPriceMicros: string | number; smsCapable: boolean } | undefined>();
  if (!offer) throw new BadRequestError(purchaseTexts.notOffered);
  if (!await defaultPaymentMethodId({ knex: deps.knex, payments: deps.payments }, userId)) throw new PaymentRequiredError(purchaseTexts.noPaymentMethod);

  let number: PhoneNumber;
  try {
    number = await PhoneNumber.query(deps.knex).insertAndFetch({
      userId,
      phoneNumber,
      countryCode: offer.countryCode,
      type: 'normal',
      smsCapable: offer.smsCapable,
      status: 'pending',
      monthlyPriceMicros: Number(offer.monthlyPriceMicros),
      periodAnchor: new Date(),
    });
  } catch (error) {
    if (isUniqueViolation(error, 'phone_numbers_held')) throw new BadRequestError(purchaseTexts.inUse);
    throw error;
  }
  await deps.knex('phone_number_offers').where({ userId, phoneNumber }).delete();

  const outcome = await purchasePhoneNumber(deps.temporal, { id: number.id, userId }, retryDelaysMs(deps.subscriptionPeriod));
  if (outcome.outcome === 'payment_failed') throw new PaymentRequiredError(purchaseTexts.paymentFailed);
  // A carrier that will not give the number answers the contract's provider failure (a 500, as documented).
  if (outcome.outcome === 'provider_failed') throw new Error(`${purchaseTexts.providerFailed} (${outcome.reason})`);
  return PhoneNumber.query(deps.knex).findById(number.id).throwIfNotFound();
}

/**
 * A subscription charge's webhook event wakes the number's workflow, which reads the charge's outcome from
 * the provider itself. A number whose workflow has ended (released meanwhile) has nothing left to settle.
 */
export function settleSubscriptionPayment(temporal: TemporalClient, logger: Logger): SubscriptionPaymentHandler {
  return async (event) => {
    const metadata = event.payment?.metadata ?? {};
    const phoneNumberId = Number(metadata.parley_phone_number_id);
    const period = Number(metadata.parley_period);
    if (!Number.isSafeInteger(phoneNumberId) || !Number.isSafeInteger(period)) return;
    try {
      await signalSubscription(temporal, phoneNumberId, 'paymentSettled', { period });
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      logger.info({ eventId: event.id, phoneNumberId }, 'a payment event for a number whose subscription has ended');
    }
  };
}

/**
 * Tells a number's subscription its owner released it. The release is on the row already, which the workflow
 * reads again when the paid period ends, so a workflow that cannot be told now (none running) loses nothing.
 */
export async function tellRelease(temporal: TemporalClient, logger: Logger, phoneNumberId: number): Promise<void> {
  try {
    await signalSubscription(temporal, phoneNumberId, 'releaseRequested');
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    logger.warn({ phoneNumberId }, 'a released number has no subscription workflow running');
  }
}

/**
 * The owner has a new default card: each past-due number's workflow tries its renewal again now instead of at
 * its next scheduled try. The card is saved whatever happens here; a workflow that cannot be told keeps its
 * schedule, so failures are logged, not answered.
 */
export function retryPastDueRenewals(deps: { knex: Knex; temporal: TemporalClient; logger: Logger }): (userId: number) => Promise<void> {
  return async (userId) => {
    const pastDue = await deps.knex('phone_numbers').where({ userId, status: 'past_due' }).pluck<number[]>('id');
    await Promise.all(pastDue.map(async (phoneNumberId) => {
      try {
        await signalSubscription(deps.temporal, phoneNumberId, 'paymentMethodUpdated');
      } catch (error) {
        deps.logger.warn({ err: error, phoneNumberId }, 'a past-due number could not be told of the new payment method');
      }
    }));
  };
}
