import type { Knex } from 'knex';
import { PlanLimitError } from '../lib/errors.ts';
import { Plan } from './plan.ts';

export type CountedLimit = 'midCallTools' | 'assistants' | 'campaigns' | 'knowledgebases';

// How each limit reads in its message: "... your plan limit of 5 mid call tools. ... to create more tools."
const wording: Record<CountedLimit, { limit: string; more: string }> = {
  midCallTools: { limit: 'mid call tools', more: 'tools' },
  assistants: { limit: 'assistants', more: 'assistants' },
  campaigns: { limit: 'campaigns', more: 'campaigns' },
  knowledgebases: { limit: 'knowledgebases', more: 'knowledgebases' },
};

export function planLimitMessage(limit: CountedLimit, value: number): string {
  const words = wording[limit];
  return `You have reached your plan limit of ${value} ${words.limit}. Please upgrade your plan to create more ${words.more}.`;
}

export async function defaultPlanId(knex: Knex): Promise<string> {
  const plan = await Plan.query(knex).findOne({ isDefault: true });
  if (!plan) throw new Error('No default plan: the plans table needs one row with is_default = true.');
  return plan.id;
}

export async function planOf(knex: Knex, planId: string): Promise<Plan> {
  return Plan.query(knex).findById(planId).throwIfNotFound();
}

/**
 * Throws the documented 422 when creating one more record would pass the plan's limit. Run it in the same
 * transaction as the insert, after locking the user's row, so two concurrent creates cannot both pass.
 */
export async function ensureWithinPlanLimit(knex: Knex, planId: string, limit: CountedLimit, currentCount: number): Promise<void> {
  const plan = await planOf(knex, planId);
  const value = plan[limit];
  if (value !== null && currentCount >= value) throw new PlanLimitError(planLimitMessage(limit, value));
}
