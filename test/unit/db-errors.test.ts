import { UniqueViolationError } from 'objection';
import { describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../../src/db/errors.ts';

describe('isUniqueViolation', () => {
  const driverError = Object.assign(new Error('duplicate key value violates unique constraint "users_email_unique"'), { code: '23505', constraint: 'users_email_unique' });
  // What objection throws for it (its types declare only Error's constructor; db-errors takes these fields).
  const Wrapper = UniqueViolationError as unknown as new (fields: Record<string, unknown>) => InstanceType<typeof UniqueViolationError>;
  const wrapped = new Wrapper({ nativeError: driverError, client: 'postgres', table: 'users', columns: ['email'], constraint: 'users_email_unique' });

  it('knows the error of the driver and the one objection wraps it in, by index when asked', () => {
    expect([isUniqueViolation(driverError), isUniqueViolation(wrapped)]).toEqual([true, true]);
    expect([isUniqueViolation(driverError, 'users_email_unique'), isUniqueViolation(wrapped, 'users_email_unique')]).toEqual([true, true]);
    expect([isUniqueViolation(driverError, 'other_index'), isUniqueViolation(wrapped, 'other_index')]).toEqual([false, false]);
  });

  it('is false for anything else', () => {
    expect(isUniqueViolation(Object.assign(new Error('deadlock'), { code: '40P01' }))).toBe(false);
    expect(isUniqueViolation(new Error('plain'))).toBe(false);
    expect(isUniqueViolation(undefined)).toBe(false);
  });
});
