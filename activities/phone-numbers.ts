import type { Knex } from 'knex';
import { customerFor, defaultPaymentMethodId } from '../src/billing/payment-customers.ts';
import { SUBSCRIPTION_PURPOSE } from '../src/billing/payment-events.ts';
import { periodEnd } from '../src/billing/renewals.ts';
import type { SubscriptionPeriod } from '../src/config.ts';
import { ConflictError, NotFoundError, RejectedError } from '../src/lib/errors.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import type { ChargeOutcome } from '../src/providers/payments/types.ts';
import type { RenewalOutcome } from '../src/temporal/shared.ts';

export interface PhoneNumberActivityDependencies {
  knex: Knex;
  logger: Logger;
  providers: Pick<Providers, 'payments' | 'telephony'>;
  /** Calendar months, or SUBSCRIPTION_PERIOD in tests. */
  subscriptionPeriod: SubscriptionPeriod;
}

interface NumberRow {
  id: number;
  userId: number;
  phoneNumber: string;
  status: 'pending' | 'active' | 'past_due' | 'released' | 'failed';
  providerNumberId: string | null;
  monthlyPriceMicros: number | string;
  period: number;
  periodAnchor: Date | null;
  currentPeriodEnd: Date | null;
  releaseRequestedAt: Date | null;
  releasedAt: Date | null;
}

async function numberRow(knex: Knex, phoneNumberId: number): Promise<NumberRow> {
  const row = await knex('phone_numbers').where({ id: phoneNumberId }).first<NumberRow | undefined>();
  if (!row) throw new NotFoundError(`Phone number ${phoneNumberId} not found.`);
  return row;
}

/** The provider's idempotency key of one try at paying one period: the same try never charges twice. */
export function periodChargeKey(phoneNumberId: number, period: number, attempt: number): string {
  return `parley-phone-number-${phoneNumberId}-period-${period}-attempt-${attempt}`;
}

/**
 * The activities of a number's subscription workflow. Each is safe to run again: provisioning stops at a
 * number that has its carrier id, a charge is keyed by its period and try, a paid period is recorded only on
 * the period before it, and a release stops at a released number.
 */
export function createPhoneNumberActivities(deps: PhoneNumberActivityDependencies) {
  const { knex, providers } = deps;
  const paymentDeps = { knex, payments: providers.payments };

  /** Records the try's outcome; a paid period moves the number on to it, once. */
  async function settle(row: NumberRow, period: number, attempt: number, outcome: ChargeOutcome): Promise<RenewalOutcome> {
    const where = { phoneNumberId: row.id, period, attempt };
    if (outcome.status === 'processing') {
      await knex('phone_number_charges').where(where).update({ status: 'processing', paymentId: outcome.paymentId, updatedAt: knex.fn.now() });
      return { outcome: 'processing' };
    }
    if (outcome.status === 'failed' || outcome.status === 'requires_action') {
      // Nobody is there to authenticate a subscription's charge: a card that asks for it has not paid.
      const reason = outcome.status === 'failed' ? outcome.reason : 'authentication_required';
      await knex('phone_number_charges').where(where).update({ status: 'failed', paymentId: outcome.paymentId, failureReason: reason, updatedAt: knex.fn.now() });
      return { outcome: 'failed', reason };
    }
    const anchor = row.periodAnchor ?? new Date();
    const end = periodEnd(anchor, period, deps.subscriptionPeriod);
    await knex.transaction(async (trx) => {
      await trx('phone_number_charges').where(where).update({ status: 'succeeded', paymentId: outcome.paymentId, failureReason: null, updatedAt: trx.fn.now() });
      await trx('phone_numbers')
        .where({ id: row.id, period: period - 1 })
        .update({ period, periodAnchor: anchor, currentPeriodEnd: end, status: 'active', statusReason: null, updatedAt: trx.fn.now() });
    });
    return { outcome: 'paid', period, periodEnd: end.toISOString() };
  }

  function paidAlready(row: NumberRow, period: number): RenewalOutcome | undefined {
    if (row.period < period) return undefined;
    return { outcome: 'paid', period: row.period, periodEnd: (row.currentPeriodEnd ?? new Date()).toISOString() };
  }

  return {
    async loadNumberSubscription({ phoneNumberId }: { phoneNumberId: number }) {
      const row = await numberRow(knex, phoneNumberId);
      return {
        period: row.period,
        periodEnd: (row.currentPeriodEnd ?? new Date()).toISOString(),
        releaseRequested: row.releaseRequestedAt !== null,
        released: row.status === 'released' || row.status === 'failed',
      };
    },

    /** Asks the carrier for the number (once: a number with its carrier id is provisioned already). */
    async provisionPhoneNumber({ phoneNumberId }: { phoneNumberId: number }): Promise<{ outcome: 'provisioned' } | { outcome: 'failed'; reason: string }> {
      const row = await numberRow(knex, phoneNumberId);
      if (row.providerNumberId) return { outcome: 'provisioned' };
      let provisioned: { providerNumberId: string };
      try {
        provisioned = await providers.telephony.provisionNumber({ phoneNumber: row.phoneNumber, idempotencyKey: `parley-phone-number-${phoneNumberId}` });
      } catch (error) {
        // The carrier will not give the number: the purchase fails; anything else is worth another try.
        if (error instanceof RejectedError) return { outcome: 'failed', reason: error.message };
        throw error;
      }
      await knex('phone_numbers').where({ id: phoneNumberId }).update({ provider: providers.telephony.name, providerNumberId: provisioned.providerNumberId, updatedAt: knex.fn.now() });
      return { outcome: 'provisioned' };
    },

    /** Pays one try at one period with the owner's default card, off-session. */
    async chargeNumberPeriod({ phoneNumberId, period, attempt }: { phoneNumberId: number; period: number; attempt: number }): Promise<RenewalOutcome> {
      const row = await numberRow(knex, phoneNumberId);
      const done = paidAlready(row, period);
      if (done) return done;
      if (row.period !== period - 1) throw new ConflictError(`Phone number ${phoneNumberId} has paid ${row.period} periods; period ${period} is not next.`);
      const amountMicros = Number(row.monthlyPriceMicros);
      await knex('phone_number_charges').insert({ phoneNumberId, period, attempt, amountMicros }).onConflict(['phone_number_id', 'period', 'attempt']).ignore();
      const paymentMethodId = await defaultPaymentMethodId(paymentDeps, row.userId);
      if (!paymentMethodId) return settle(row, period, attempt, { status: 'failed', paymentId: null, reason: 'no_payment_method', message: 'No payment method on file.' });
      const outcome = await providers.payments.charge({
        customerId: await customerFor(paymentDeps, row.userId),
        paymentMethodId,
        amountMicros,
        description: `Parley phone number ${row.phoneNumber}, month ${period}`,
        idempotencyKey: periodChargeKey(phoneNumberId, period, attempt),
        offSession: true,
        metadata: { parley_purpose: SUBSCRIPTION_PURPOSE, parley_phone_number_id: String(phoneNumberId), parley_period: String(period), parley_attempt: String(attempt) },
      });
      return settle(row, period, attempt, outcome);
    },

    /** Reads a processing charge's outcome from the provider. */
    async confirmNumberPeriod({ phoneNumberId, period, attempt }: { phoneNumberId: number; period: number; attempt: number }): Promise<RenewalOutcome> {
      const row = await numberRow(knex, phoneNumberId);
      const done = paidAlready(row, period);
      if (done) return done;
      const charge = await knex('phone_number_charges').where({ phoneNumberId, period, attempt }).first<{ paymentId: string | null } | undefined>('paymentId');
      if (!charge?.paymentId) throw new NotFoundError(`No charge of period ${period} of phone number ${phoneNumberId} to confirm.`);
      const payment = await providers.payments.retrievePayment(charge.paymentId);
      if (payment.status === 'processing') return { outcome: 'processing' };
      const outcome: ChargeOutcome = payment.status === 'succeeded'
        ? { status: 'succeeded', paymentId: payment.id }
        : { status: 'failed', paymentId: payment.id, reason: payment.failureReason ?? 'authentication_required', message: 'The payment did not go through.' };
      return settle(row, period, attempt, outcome);
    },

    async markNumberPastDue({ phoneNumberId, reason, nextAttemptAt }: { phoneNumberId: number; reason: string; nextAttemptAt: string | null }) {
      const text = nextAttemptAt ? `Renewal payment failed (${reason}); trying again at ${nextAttemptAt}.` : `Renewal payment failed (${reason}).`;
      await knex('phone_numbers').where({ id: phoneNumberId }).whereNot({ status: 'released' }).update({ status: 'past_due', statusReason: text.slice(0, 255), updatedAt: knex.fn.now() });
    },

    /** The purchase did not go through: the number is no one's and can be offered again. */
    async failPurchase({ phoneNumberId, reason }: { phoneNumberId: number; reason: string }) {
      await knex('phone_numbers').where({ id: phoneNumberId }).update({ status: 'failed', statusReason: reason.slice(0, 255), updatedAt: knex.fn.now() });
    },

    /** Gives the number back to the carrier, then frees it here: assistants lose it, calls keep their history. */
    async releasePhoneNumber({ phoneNumberId, reason }: { phoneNumberId: number; reason: 'requested' | 'payment_failed' | 'purchase_failed' }) {
      const row = await numberRow(knex, phoneNumberId);
      if (row.releasedAt) return;
      if (row.providerNumberId) await providers.telephony.releaseNumber(row.providerNumberId);
      const texts = { requested: 'Released at its owner\'s request.', payment_failed: 'Released: the renewal was not paid.', purchase_failed: 'The purchase payment failed.' };
      await knex.transaction(async (trx) => {
        await trx('assistants').where({ phoneNumberId }).update({ phoneNumberId: null });
        await trx('phone_numbers').where({ id: phoneNumberId }).update({
          status: reason === 'purchase_failed' ? 'failed' : 'released', statusReason: texts[reason], releasedAt: trx.fn.now(), updatedAt: trx.fn.now(),
        });
      });
    },
  };
}
