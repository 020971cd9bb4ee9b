import { UniqueViolationError } from 'objection';

/**
 * Whether `error` is PostgreSQL's unique violation, `constraint` naming the index when given. A plain knex
 * query rejects with the driver's error (`code` 23505); an objection model query wraps it in
 * `UniqueViolationError`, which keeps the code only on `nativeError`, so both are checked here, once.
 */
export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (error instanceof UniqueViolationError) return constraint === undefined || error.constraint === constraint;
  const driver = error as { code?: string; constraint?: string } | null;
  return driver?.code === '23505' && (constraint === undefined || driver.constraint === constraint);
}
