import type { PaymentSettledSignal, SubscriptionProgress } from '../src/temporal/shared.ts';

/**
 * What a number's subscription has heard through its signals, and the rules of its renewals. Plain data and
 * decisions, no Temporal: the workflow feeds it the activities' answers and the signals, and asks it what
 * follows. A signal repeated (a webhook delivered twice) changes nothing more.
 */
export class SubscriptionState {
  progress: SubscriptionProgress;
  /** Set by the signal; cleared as each try at a charge begins. */
  paymentMethodUpdated = false;
  /** Periods whose processing charge the provider's webhook has settled: the outcome is read from the provider. */
  private readonly settled = new Set<number>();
  private readonly retryDelaysMs: number[];

  constructor(retryDelaysMs: number[]) {
    this.progress = { status: 'active', period: 0, periodEnd: new Date(0).toISOString(), releaseRequested: false, failedAttempts: 0 };
    this.retryDelaysMs = retryDelaysMs;
  }

  /** The subscription as stored; a release asked for before the workflow read it stays asked for. */
  load(stored: { period: number; periodEnd: string; releaseRequested: boolean }): void {
    this.progress = { ...this.progress, period: stored.period, periodEnd: stored.periodEnd, releaseRequested: this.progress.releaseRequested || stored.releaseRequested };
  }

  requestRelease(): void {
    this.progress.releaseRequested = true;
  }

  updatePaymentMethod(): void {
    this.paymentMethodUpdated = true;
  }

  settle(signal: PaymentSettledSignal): void {
    this.settled.add(signal.period);
  }

  /** Whether the provider's webhook has said that the charge for `period` is settled, either way. */
  hasSettled(period: number): boolean {
    return this.settled.has(period);
  }

  /** The period the next renewal pays for. */
  get nextPeriod(): number {
    return this.progress.period + 1;
  }

  paid(outcome: { period: number; periodEnd: string }): void {
    this.progress = { ...this.progress, status: 'active', period: outcome.period, periodEnd: outcome.periodEnd, failedAttempts: 0 };
    delete this.progress.nextAttemptAt;
    delete this.progress.lastFailure;
  }

  /**
   * A renewal failed: how long until the next try, or undefined when the tries are used up and the grace
   * period is over (the number is then released).
   */
  failed(reason: string, now: number): number | undefined {
    const delay = this.retryDelaysMs[this.progress.failedAttempts];
    this.progress.failedAttempts += 1;
    this.progress.lastFailure = reason;
    if (delay === undefined) {
      delete this.progress.nextAttemptAt;
      return undefined;
    }
    this.progress.status = 'past_due';
    this.progress.nextAttemptAt = new Date(now + delay).toISOString();
    return delay;
  }

  released(): void {
    this.progress.status = 'released';
    delete this.progress.nextAttemptAt;
  }
}
