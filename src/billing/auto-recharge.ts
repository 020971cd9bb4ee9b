import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { PaymentRequiredError } from '../lib/errors.ts';
import type { PaymentDeps } from './payment-customers.ts';
import { topUp, type TopUp } from './top-ups.ts';

export interface AutoRechargeSettings {
  enabled: boolean;
  thresholdMicros: number;
  amountMicros: number;
}

/** Saves the user's rule; saving arms it, so the next charge below the threshold recharges. */
export async function saveAutoRecharge(deps: Pick<PaymentDeps, 'knex'>, userId: number, settings: AutoRechargeSettings): Promise<void> {
  await deps.knex('auto_recharge_settings')
    .insert({ userId, ...settings, armed: true })
    .onConflict('user_id')
    .merge({ ...settings, armed: true, updatedAt: deps.knex.fn.now() });
}

export async function readAutoRecharge(deps: Pick<PaymentDeps, 'knex'>, userId: number): Promise<AutoRechargeSettings | undefined> {
  const row = await deps.knex('auto_recharge_settings').where({ userId }).first<AutoRechargeSettings | undefined>('enabled', 'thresholdMicros', 'amountMicros');
  return row && { enabled: row.enabled, thresholdMicros: Number(row.thresholdMicros), amountMicros: Number(row.amountMicros) };
}

/**
 * Recharges when the balance is below the user's threshold and the rule is armed. Disarming and checking
 * are one statement, so charges racing past the threshold start one recharge; the rule re-arms when the
 * balance rises back to the threshold (a trigger, migration 20261124100006). A failed recharge leaves it
 * disarmed: the next crossing, after a top-up, tries again.
 */
export async function autoRechargeIfDue(deps: PaymentDeps, userId: number): Promise<TopUp | undefined> {
  const { rows } = await deps.knex.raw<{ rows: { amount_micros: string | number }[] }>(`
    update auto_recharge_settings s set armed = false, updated_at = now()
    from user_balances b
    where s.user_id = ? and s.enabled and s.armed and b.user_id = s.user_id and b.micros < s.threshold_micros
    returning s.amount_micros`, [userId]);
  const due = rows[0];
  if (!due) return undefined;
  return topUp(deps, { userId, amountMicros: Number(due.amount_micros), idempotencyKey: `auto-recharge-${randomUUID()}`, automatic: true });
}

/**
 * Whether a charge to `userId` (a value, or a column of the caller's statement) can set off a recharge: the
 * user's rule is on and armed. A statement that charges can read it in passing, so that a charge to a user
 * without one costs no `autoRechargeIfDue` round trip.
 */
export function rechargeArmedExpression(knex: Knex, userId: number | Knex.Raw): Knex.Raw {
  return knex.raw('exists (select 1 from auto_recharge_settings r where r.user_id = ? and r.enabled and r.armed)', [userId]);
}

/**
 * What the places that charge the ledger call after a charge: the check and any recharge run in the
 * background, so the request or activity that charged never waits for a card payment; what goes wrong is logged.
 */
export function createAutoRecharger(deps: PaymentDeps & { logger: Logger }): (userId: number) => Promise<void> {
  return async (userId) => {
    try {
      const recharged = await autoRechargeIfDue(deps, userId);
      if (recharged) deps.logger.info({ userId, topUpId: recharged.id, status: recharged.status }, 'auto-recharged a balance below its threshold');
    } catch (error) {
      const level = error instanceof PaymentRequiredError ? 'info' : 'error';
      deps.logger[level]({ err: error, userId }, 'auto-recharge failed');
    }
  };
}
