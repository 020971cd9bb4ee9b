import {
  ActivityFailure, ApplicationFailure, condition, continueAsNew, defineQuery, defineSignal, defineUpdate, proxyActivities, setHandler, sleep,
} from '@temporalio/workflow';
import type { Activities } from '../activities/index.ts';
import {
  nonRetryableErrorTypes, subscriptionSignals, type PaymentSettledSignal, type PhoneNumberSubscriptionInput,
  type PhoneNumberSubscriptionResult, type PurchaseOutcome, type RenewalOutcome, type SubscriptionProgress,
} from '../src/temporal/shared.ts';
import { SubscriptionState } from './subscription-state.ts';

export const releaseRequestedSignal = defineSignal(subscriptionSignals.releaseRequested);
export const paymentMethodUpdatedSignal = defineSignal(subscriptionSignals.paymentMethodUpdated);
export const paymentSettledSignal = defineSignal<[PaymentSettledSignal]>(subscriptionSignals.paymentSettled);

/** The subscription's state, its paid period and its next renewal or retry, for the UI and operators. */
export const subscriptionQuery = defineQuery<SubscriptionProgress>('subscription');

/** The purchase request waits on this for the purchase's outcome (provisioned and paid, or why not). */
export const purchaseUpdate = defineUpdate<PurchaseOutcome>('purchase');

/** A year of renewals per run, then a fresh history. */
const RENEWALS_PER_RUN = 12;
const DEFAULT_SETTLE_WAIT_MS = 60 * 60 * 1000;

// Reading and writing the number's row: quick, and worth patience when the database restarts.
const bookkeeping = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 30, nonRetryableErrorTypes },
});

// Charges carry an idempotency key per period and attempt, so a retried activity (after a timeout, a dead
// worker) never charges twice; the carrier's provisioning is keyed by the number the same way.
const provider = proxyActivities<Activities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '10 minutes', maximumAttempts: 50, nonRetryableErrorTypes },
});

function isGone(error: unknown): boolean {
  const cause = error instanceof ActivityFailure ? error.cause : error;
  return cause instanceof ApplicationFailure && cause.type === 'not_found';
}

/**
 * One bought number's subscription (`phone-number-<id>`). Started by the purchase, it provisions the number
 * with the carrier and charges the first month (the purchase request waits for that through
 * `purchaseUpdate`); a number never stays provisioned unpaid, nor paid for unprovisioned. Then it sleeps
 * until the paid period ends and charges the next one, off-session; on a failed payment it marks the number
 * past due and tries again after each retry delay, or at once when the owner updates the payment method, and
 * releases the number with the carrier when the tries run out. A release the owner asks for takes effect
 * when the paid period ends. Ends when the number is released.
 */
export async function phoneNumberSubscriptionWorkflow(input: PhoneNumberSubscriptionInput): Promise<PhoneNumberSubscriptionResult> {
  const { phoneNumberId } = input;
  const state = new SubscriptionState(input.retryDelaysMs);
  let purchase: PurchaseOutcome | undefined = input.purchase ? undefined : { outcome: 'purchased' };
  setHandler(releaseRequestedSignal, () => state.requestRelease());
  setHandler(paymentMethodUpdatedSignal, () => state.updatePaymentMethod());
  setHandler(paymentSettledSignal, (signal) => state.settle(signal));
  setHandler(subscriptionQuery, () => state.progress);
  setHandler(purchaseUpdate, async () => {
    await condition(() => purchase !== undefined);
    return purchase as PurchaseOutcome;
  });

  try {
    if (input.purchase) {
      purchase = await buy(input, state);
      if (purchase.outcome !== 'purchased') {
        state.released();
        return { reason: 'purchase_failed' };
      }
    }
    const stored = await bookkeeping.loadNumberSubscription({ phoneNumberId });
    if (stored.released) {
      state.released();
      return { reason: stored.releaseRequested ? 'requested' : 'payment_failed' };
    }
    state.load(stored);
    for (let renewal = 0; renewal < RENEWALS_PER_RUN; renewal++) {
      // The paid period runs its course; a release asked for meanwhile waits for its end. The row is read
      // again then: a release recorded there counts even if its signal never came.
      await sleep(Math.max(Date.parse(state.progress.periodEnd) - Date.now(), 0));
      if ((await bookkeeping.loadNumberSubscription({ phoneNumberId })).releaseRequested) state.requestRelease();
      if (state.progress.releaseRequested) return await release(phoneNumberId, state, 'requested');
      const renewed = await renew(input, state);
      if (renewed !== 'paid') return await release(phoneNumberId, state, renewed);
    }
  } catch (error) {
    if (!isGone(error)) throw error;
    purchase ??= { outcome: 'provider_failed', reason: 'The number was deleted during its purchase.' };
    state.released();
    return { reason: 'deleted' };
  }
  // A release asked for since the last step is on the number's row, which the next run reads.
  return await continueAsNew<typeof phoneNumberSubscriptionWorkflow>({ ...input, purchase: false });
}

/** Provisions the number, then pays its first period; a number that cannot be paid for is released again. */
async function buy(input: PhoneNumberSubscriptionInput, state: SubscriptionState): Promise<PurchaseOutcome> {
  const { phoneNumberId } = input;
  const provisioned = await provider.provisionPhoneNumber({ phoneNumberId });
  if (provisioned.outcome === 'failed') {
    await bookkeeping.failPurchase({ phoneNumberId, reason: provisioned.reason });
    return { outcome: 'provider_failed', reason: provisioned.reason };
  }
  const paid = await pay(input, state, 1, 0);
  if (paid.outcome === 'paid') return { outcome: 'purchased' };
  await provider.releasePhoneNumber({ phoneNumberId, reason: 'purchase_failed' });
  return { outcome: 'payment_failed', reason: paid.reason };
}

/** Charges `period` (try `attempt`), waiting out a charge the provider confirms later. */
async function pay(input: PhoneNumberSubscriptionInput, state: SubscriptionState, period: number, attempt: number): Promise<Exclude<RenewalOutcome, { outcome: 'processing' }>> {
  const { phoneNumberId } = input;
  let outcome = await provider.chargeNumberPeriod({ phoneNumberId, period, attempt });
  while (outcome.outcome === 'processing') {
    // The webhook says when the provider has settled it; without one, the provider is asked after a while.
    await condition(() => state.hasSettled(period), input.settleWaitMs ?? DEFAULT_SETTLE_WAIT_MS);
    outcome = await provider.confirmNumberPeriod({ phoneNumberId, period, attempt });
  }
  if (outcome.outcome === 'paid') state.paid(outcome);
  return outcome;
}

/** Pays the next period, retrying as the billing rules say; what ended the tries when it could not. */
async function renew(input: PhoneNumberSubscriptionInput, state: SubscriptionState): Promise<'paid' | 'requested' | 'payment_failed'> {
  const { phoneNumberId } = input;
  const period = state.nextPeriod;
  for (let attempt = 0; ; attempt++) {
    // A payment method updated once this try has begun (even while its failure is being recorded) may
    // not have been the one charged: it earns a try at once.
    state.paymentMethodUpdated = false;
    const outcome = await pay(input, state, period, attempt);
    if (outcome.outcome === 'paid') return 'paid';
    const delay = state.failed(outcome.reason, Date.now());
    await bookkeeping.markNumberPastDue({ phoneNumberId, reason: outcome.reason, nextAttemptAt: state.progress.nextAttemptAt ?? null });
    if (delay === undefined) return 'payment_failed';
    await condition(() => state.paymentMethodUpdated || state.progress.releaseRequested, delay);
    // Released while unpaid: nothing covers the time since the period ended, so it goes now.
    if (state.progress.releaseRequested) return 'requested';
  }
}

async function release(phoneNumberId: number, state: SubscriptionState, reason: 'requested' | 'payment_failed'): Promise<PhoneNumberSubscriptionResult> {
  await provider.releasePhoneNumber({ phoneNumberId, reason });
  state.released();
  return { reason };
}
