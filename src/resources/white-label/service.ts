import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { balanceMicros, chargeExpression, recordEntry } from '../../billing/ledger.ts';
import { microsToUnits, unitsToMicros, type TransferUnit } from '../../billing/minutes.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { User } from '../users/model.ts';

/** A white-label admin: its id and the price per minute of its plan, in which its platform's minutes are counted. */
export interface PlatformAdmin {
  id: number;
  perMinuteMicros: number;
}

/** The text of the 403 every `/white-label/*` route answers a caller that is not a white-label admin. */
export const NOT_WHITE_LABEL_ADMIN = 'Only white label admins can use this endpoint.';

/** The caller as a white-label admin, or 403 when the operator has not made it one. */
export async function requireWhiteLabelAdmin(knex: Knex, userId: number): Promise<PlatformAdmin> {
  const row = await knex('users as u')
    .join('plans as p', 'p.id', 'u.plan_id')
    .where({ 'u.id': userId, 'u.white_label_admin': true })
    .first<{ id: number; price: number | string } | undefined>('u.id', 'p.call_price_per_minute_micros as price');
  if (!row) throw new ForbiddenError(NOT_WHITE_LABEL_ADMIN);
  return { id: row.id, perMinuteMicros: Number(row.price) };
}

/** Which user a request names: by id or by email (the schema requires one). */
export interface UserSelector {
  user_id?: number | undefined;
  email?: string | undefined;
}

/** Laravel's `required_without` texts, for a body that names the user neither way. */
export function requireUserSelector(selector: UserSelector): void {
  if (selector.user_id === undefined && selector.email === undefined) {
    throw new ValidationError({
      user_id: ['The user id field is required when email is not present.'],
      email: ['The email field is required when user id is not present.'],
    });
  }
}

/**
 * A user of the admin's platform, by id or email; a user of another platform (or of none) is not found, exactly
 * as one that does not exist. With both, both must name the same user.
 */
export async function findPlatformUser(knex: Knex, adminId: number, selector: UserSelector): Promise<User> {
  requireUserSelector(selector);
  const query = User.query(knex).where({ whiteLabelOwnerId: adminId });
  if (selector.user_id !== undefined) query.where({ id: selector.user_id });
  if (selector.email !== undefined) query.whereRaw('lower(email) = lower(?)', [selector.email]);
  const user = await query.first();
  if (!user) throw new NotFoundError('User not found.');
  return user;
}

/** A user of the platform with its balance in both units. */
export interface PlatformUserBalance {
  user: User;
  minutes: number;
  credits: number;
}

function inUnits(user: User, micros: number, admin: PlatformAdmin): PlatformUserBalance {
  return { user, minutes: microsToUnits(micros, 'minutes', admin.perMinuteMicros), credits: microsToUnits(micros, 'credits', admin.perMinuteMicros) };
}

/** The admin's platform users, oldest first, with their balances. */
export async function listPlatformUsers(knex: Knex, admin: PlatformAdmin): Promise<PlatformUserBalance[]> {
  const users = await User.query(knex)
    .where({ whiteLabelOwnerId: admin.id })
    .leftJoin('user_balances as b', 'b.user_id', 'users.id')
    .select('users.*', knex.raw('coalesce(b.micros, 0) as balance_micros'))
    .orderBy('users.id') as (User & { balanceMicros: number | string })[];
  return users.map((user) => inUnits(user, Number(user.balanceMicros), admin));
}

export interface TransferInput {
  user: User;
  unit: TransferUnit;
  /** `add` moves from the admin to the user, `remove` back. */
  operation: 'add' | 'remove';
  amount: number;
}

export interface TransferResult {
  user: PlatformUserBalance;
  adminMinutes: number;
}

/**
 * Moves the amount's worth between the admin and its user: the giving side is charged within its balance (never
 * below zero) and the receiving side credited the same micro-dollars, one ledger entry each, in one transaction.
 * The two users are locked in id order first, so transfers between the same pair, either way, run one at a time.
 */
export async function transferBalance(knex: Knex, admin: PlatformAdmin, input: TransferInput): Promise<TransferResult> {
  const micros = unitsToMicros(input.amount, input.unit, admin.perMinuteMicros);
  if (micros <= 0) throw ValidationError.of('amount', `The amount is worth nothing at your plan's price per minute.`);
  const adding = input.operation === 'add';
  const from = adding ? admin.id : input.user.id;
  const to = adding ? input.user.id : admin.id;
  const key = `white-label-transfer:${randomUUID()}`;
  const what = `${input.amount} ${input.unit}`;
  return knex.transaction(async (trx) => {
    await trx('users').whereIn('id', [from, to]).orderBy('id').forUpdate().select('id');
    const charge = chargeExpression(trx, {
      userId: from,
      amountMicros: micros,
      kind: 'white_label_transfer',
      reference: `user:${to}`,
      description: `White-label transfer of ${what} to user ${to}`,
      idempotencyKey: `${key}:from`,
    });
    const { rows } = await trx.raw<{ rows: { entryId: number | null }[] }>('select ? as "entryId"', [charge]);
    if (rows[0]?.entryId == null) {
      throw ValidationError.of('amount', adding
        ? `Your balance does not cover ${what}.`
        : `The user's balance does not cover ${what}.`);
    }
    await recordEntry(trx, {
      userId: to,
      amountMicros: micros,
      kind: 'white_label_transfer',
      reference: `user:${from}`,
      description: `White-label transfer of ${what} from user ${from}`,
      idempotencyKey: `${key}:to`,
    });
    const [userMicros, adminMicros] = [await balanceMicros(trx, input.user.id), await balanceMicros(trx, admin.id)];
    return { user: inUnits(input.user, userMicros, admin), adminMinutes: microsToUnits(adminMicros, 'minutes', admin.perMinuteMicros) };
  });
}
