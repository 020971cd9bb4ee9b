import type { SelfCheckResult } from '../src/temporal/shared.ts';
import type { Knex } from 'knex';

export function createSelfCheckActivities({ knex }: { knex: Knex }) {
  return {
    /** Idempotent: a retried attempt finds the row its predecessor wrote. */
    async recordSelfCheck(input: { checkId: string; workflowId: string }): Promise<SelfCheckResult> {
      await knex('platform_checks').insert({ id: input.checkId, workflowId: input.workflowId }).onConflict('id').ignore();
      const row = await knex('platform_checks').where({ id: input.checkId }).first() as { completedAt: Date };
      return { checkId: input.checkId, completedAt: row.completedAt.toISOString() };
    },
  };
}
