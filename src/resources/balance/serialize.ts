import type { BalanceTransaction } from '../../billing/balance-transaction.ts';
import type { AutoRechargeSettings } from '../../billing/auto-recharge.ts';
import type { TopUp } from '../../billing/top-ups.ts';
import { microsToUsd } from '../../lib/money.ts';
import { isoTimestamp } from '../../lib/time.ts';

export function topUpItem(topUp: TopUp, balanceMicros: number) {
  return {
    id: topUp.id,
    amount: microsToUsd(topUp.amountMicros),
    status: topUp.status,
    payment_id: topUp.paymentId,
    balance: microsToUsd(balanceMicros),
    created_at: isoTimestamp(topUp.createdAt),
  };
}

export function autoRechargeItem(settings: AutoRechargeSettings) {
  return { enabled: settings.enabled, threshold: microsToUsd(settings.thresholdMicros), amount: microsToUsd(settings.amountMicros) };
}

export function transactionItem(entry: BalanceTransaction) {
  return {
    id: Number(entry.id),
    amount: microsToUsd(Number(entry.amountMicros)),
    type: entry.kind,
    description: entry.description,
    reference: entry.reference,
    created_at: isoTimestamp(entry.createdAt),
  };
}
