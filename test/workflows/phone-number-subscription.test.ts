import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { workflowTypes, type RenewalOutcome } from '../../src/temporal/shared.ts';
import {
  paymentMethodUpdatedSignal, paymentSettledSignal, purchaseUpdate, releaseRequestedSignal, subscriptionQuery, type phoneNumberSubscriptionWorkflow,
} from '../../workflows/phone-number-subscription.ts';
import { startStubWorker, type StubWorker } from '../support/workflows.ts';

let lastNumberId = 0;
const PERIOD_MS = 1000;

/**
 * A number whose periods last PERIOD_MS: the stubs keep its paid periods as the activities keep them on the
 * row, and `charges` says how each try at a period goes (paid when it has no word for it).
 */
function carrierAndBank(charges: Partial<Record<string, RenewalOutcome['outcome'] | 'failed'>> = {}) {
  const anchor = Date.now();
  let period = 0;
  const paid = (p: number): RenewalOutcome => {
    period = p;
    return { outcome: 'paid', period: p, periodEnd: new Date(anchor + p * PERIOD_MS).toISOString() };
  };
  const outcomeOf = (p: number, attempt: number, confirming: boolean): RenewalOutcome => {
    const planned = charges[`${p}.${attempt}`];
    if (planned === 'failed') return { outcome: 'failed', reason: 'card_declined' };
    if (planned === 'processing' && !confirming) return { outcome: 'processing' };
    return paid(p);
  };
  return {
    loadNumberSubscription: () => Promise.resolve({ period, periodEnd: new Date(anchor + period * PERIOD_MS).toISOString(), releaseRequested: false, released: false }),
    provisionPhoneNumber: () => Promise.resolve({ outcome: 'provisioned' as const }),
    chargeNumberPeriod: ({ period: p, attempt }: { period: number; attempt: number }) => Promise.resolve(outcomeOf(p, attempt, false)),
    confirmNumberPeriod: ({ period: p, attempt }: { period: number; attempt: number }) => Promise.resolve(outcomeOf(p, attempt, true)),
    markNumberPastDue: () => Promise.resolve(),
    failPurchase: () => Promise.resolve(),
    releasePhoneNumber: () => Promise.resolve(),
  } satisfies Partial<Activities>;
}

async function subscribe(stubs: Partial<Activities>, options: { purchase?: boolean; retryDelaysMs?: number[] } = {}) {
  const worker = await startStubWorker(stubs);
  onTestFinished(() => worker.stop());
  const phoneNumberId = ++lastNumberId;
  const handle = await worker.temporal.client.workflow.start<typeof phoneNumberSubscriptionWorkflow>(workflowTypes.phoneNumberSubscription, {
    taskQueue: worker.temporal.taskQueue,
    workflowId: workflowIds.phoneNumber(phoneNumberId),
    args: [{ phoneNumberId, purchase: options.purchase ?? true, retryDelaysMs: options.retryDelaysMs ?? [300, 300, 300], settleWaitMs: 30_000 }],
  });
  return { worker, phoneNumberId, handle };
}

const names = (worker: StubWorker) => worker.calls.map((entry) => entry.name);
const charges = (worker: StubWorker) => worker.calls.filter((entry) => entry.name === 'chargeNumberPeriod').map((entry) => entry.input);

describe('phoneNumberSubscriptionWorkflow', () => {
  it('provisions and pays the first month for the purchase, renews each period, and releases at the end of the paid period when asked', async () => {
    const { worker, phoneNumberId, handle } = await subscribe(carrierAndBank());
    expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ outcome: 'purchased' });
    expect(names(worker).slice(0, 2)).toEqual(['provisionPhoneNumber', 'chargeNumberPeriod']);
    // Two renewals, then the owner releases: the number stays until the period paid for ends.
    await expect.poll(() => charges(worker).length, { timeout: 5000 }).toBe(3);
    await handle.signal(releaseRequestedSignal);
    expect(await handle.query(subscriptionQuery)).toMatchObject({ status: 'active', period: 3, releaseRequested: true });
    expect(await handle.result()).toEqual({ reason: 'requested' });
    expect(charges(worker)).toEqual([1, 2, 3].map((period) => ({ phoneNumberId, period, attempt: 0 })));
    expect(worker.calls.at(-1)).toMatchObject({ name: 'releasePhoneNumber', input: { phoneNumberId, reason: 'requested' } });
  });

  it('answers the purchase with the failed payment and gives the number back to the carrier', async () => {
    const { worker, phoneNumberId, handle } = await subscribe(carrierAndBank({ '1.0': 'failed' }));
    expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ outcome: 'payment_failed', reason: 'card_declined' });
    expect(await handle.result()).toEqual({ reason: 'purchase_failed' });
    expect(names(worker)).toEqual(['provisionPhoneNumber', 'chargeNumberPeriod', 'releasePhoneNumber']);
    expect(worker.calls.at(-1)?.input).toEqual({ phoneNumberId, reason: 'purchase_failed' });
  });

  it('charges nothing when the carrier will not give the number', async () => {
    const { worker, phoneNumberId, handle } = await subscribe({
      ...carrierAndBank(),
      provisionPhoneNumber: () => Promise.resolve({ outcome: 'failed' as const, reason: 'taken' }),
    });
    expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ outcome: 'provider_failed', reason: 'taken' });
    expect(await handle.result()).toEqual({ reason: 'purchase_failed' });
    expect(names(worker)).toEqual(['provisionPhoneNumber', 'failPurchase']);
    expect(worker.calls.at(-1)?.input).toEqual({ phoneNumberId, reason: 'taken' });
  });

  it('retries a failed renewal on its schedule, each try with its own key, and releases the number when the tries run out', async () => {
    const { worker, phoneNumberId, handle } = await subscribe(carrierAndBank({ '2.0': 'failed', '2.1': 'failed', '2.2': 'failed', '2.3': 'failed' }));
    await handle.executeUpdate(purchaseUpdate);
    expect(await handle.result()).toEqual({ reason: 'payment_failed' });
    expect(charges(worker).slice(1)).toEqual([0, 1, 2, 3].map((attempt) => ({ phoneNumberId, period: 2, attempt })));
    const pastDue = worker.calls.filter((entry) => entry.name === 'markNumberPastDue').map((entry) => entry.input as { nextAttemptAt: string | null });
    expect(pastDue.map((entry) => entry.nextAttemptAt === null)).toEqual([false, false, false, true]);
    expect(worker.calls.at(-1)).toMatchObject({ name: 'releasePhoneNumber', input: { phoneNumberId, reason: 'payment_failed' } });
    expect(await handle.query(subscriptionQuery)).toMatchObject({ status: 'released', failedAttempts: 4, lastFailure: 'card_declined' });
  });

  it('tries again at once when the owner updates the payment method, and goes on renewing once paid', async () => {
    // The owner updates the card while the failure is still being recorded: that update counts too.
    let recorded!: () => void;
    const recording = new Promise<void>((resolve) => { recorded = resolve; });
    const { worker, handle } = await subscribe({
      ...carrierAndBank({ '2.0': 'failed' }),
      markNumberPastDue: () => recording,
    }, { retryDelaysMs: [60_000] });
    await handle.executeUpdate(purchaseUpdate);
    await expect.poll(() => names(worker).includes('markNumberPastDue'), { timeout: 5000 }).toBe(true);
    await handle.signal(paymentMethodUpdatedSignal);
    recorded();
    await expect.poll(() => charges(worker).length, { timeout: 5000 }).toBeGreaterThanOrEqual(4);
    expect(charges(worker).slice(1, 3)).toMatchObject([{ period: 2, attempt: 0 }, { period: 2, attempt: 1 }]);
    await handle.signal(releaseRequestedSignal);
    expect(await handle.result()).toEqual({ reason: 'requested' });
  });

  it('waits for the webhook of a charge the provider confirms later, then reads its outcome', async () => {
    const { worker, handle } = await subscribe(carrierAndBank({ '1.0': 'processing' }), { purchase: true });
    await expect.poll(() => names(worker).includes('chargeNumberPeriod'), { timeout: 5000 }).toBe(true);
    await handle.signal(paymentSettledSignal, { period: 1 });
    expect(await handle.executeUpdate(purchaseUpdate)).toEqual({ outcome: 'purchased' });
    expect(names(worker).slice(0, 3)).toEqual(['provisionPhoneNumber', 'chargeNumberPeriod', 'confirmNumberPeriod']);
    await handle.signal(releaseRequestedSignal);
    expect(await handle.result()).toEqual({ reason: 'requested' });
  });
});
