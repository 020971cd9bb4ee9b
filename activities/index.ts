import type { Knex } from 'knex';
import type { Logger } from '../src/logger.ts';
import { createSelfCheckActivities } from './self-check.ts';

export interface ActivityDependencies {
  knex: Knex;
  logger: Logger;
}

/** Every activity, built over its dependencies so tests can hand in their own database and fakes. */
export function createActivities(deps: ActivityDependencies) {
  return {
    ...createSelfCheckActivities(deps),
  };
}

export type Activities = ReturnType<typeof createActivities>;
