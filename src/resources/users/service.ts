import { isUniqueViolation } from '../../db/errors.ts';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { ValidationError } from '../../lib/errors.ts';
import { microsToUsd } from '../../lib/money.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { balanceMicros, recordEntry } from '../../billing/ledger.ts';
import { defaultPlanId } from '../../billing/plans.ts';
import { User } from './model.ts';

export interface NewUser {
  name: string;
  email: string;
  password?: string | undefined;
  timezone?: string | undefined;
  /** Starting credit written to the ledger as one entry. */
  creditMicros?: number;
  creditKind?: 'signup_credit' | 'adjustment';
  /** The white-label admin that registers this user on its platform. */
  whiteLabelOwnerId?: number;
}

export async function findUserByEmail(knex: Knex, email: string): Promise<User | undefined> {
  return User.query(knex).whereRaw('lower(email) = lower(?)', [email]).first();
}

/** Creates an account on the default plan, with its starting credit, in one transaction; name and email are stored trimmed. */
export async function createUser(knex: Knex, input: NewUser): Promise<User> {
  const passwordHash = input.password ? await hashPassword(input.password) : null;
  try {
    return await knex.transaction(async (trx) => {
      if (await findUserByEmail(trx, input.email)) throw ValidationError.of('email', 'The email has already been taken.');
      const user = await User.query(trx).insertAndFetch({
        name: input.name.trim(),
        email: input.email.trim(),
        passwordHash,
        timezone: input.timezone ?? 'UTC',
        planId: await defaultPlanId(trx),
        whiteLabelOwnerId: input.whiteLabelOwnerId ?? null,
      });
      if (input.creditMicros && input.creditMicros !== 0) {
        await recordEntry(trx, {
          userId: user.id,
          amountMicros: input.creditMicros,
          kind: input.creditKind ?? 'signup_credit',
          reference: `user:${user.id}`,
          description: 'Starting credit',
          idempotencyKey: `${input.creditKind ?? 'signup_credit'}:${user.id}:${randomUUID()}`,
        });
      }
      return user;
    });
  } catch (error) {
    // Two registrations racing for one address: the unique index decides, and the loser reads like Laravel's rule.
    if (isUniqueViolation(error)) throw ValidationError.of('email', 'The email has already been taken.');
    throw error;
  }
}

export async function profile(knex: Knex, userId: number): Promise<{ name: string; email: string; totalBalanceUsd: number }> {
  const user = await User.query(knex).findById(userId).throwIfNotFound();
  return { name: user.name, email: user.email, totalBalanceUsd: microsToUsd(await balanceMicros(knex, userId)) };
}
