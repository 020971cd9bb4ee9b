import type { Knex } from 'knex';
import { BadRequestError, NotFoundError } from '../../lib/errors.ts';
import { PhoneNumber } from './model.ts';

const NOT_FOUND = 'Phone number not found.';
const ALREADY_RELEASING = 'Phone number is already scheduled for release.';

export interface AssignableNumber {
  number: PhoneNumber;
  /** Whether a new inbound assistant may take it: not a caller-ID number, and not on an inbound assistant. */
  isAvailable: boolean;
}

/**
 * The caller's numbers for the assistant form. For `inbound`, only numbers that can answer calls and are
 * free: a number reaches one inbound assistant, and a caller ID can only place calls.
 */
export async function assignableNumbers(knex: Knex, userId: number, type?: 'inbound' | 'outbound'): Promise<AssignableNumber[]> {
  const rows = await PhoneNumber.query(knex)
    .select('phone_numbers.*')
    .select(knex.raw(
      "exists (select 1 from assistants where assistants.phone_number_id = phone_numbers.id and assistants.type = 'inbound') as on_inbound",
    ))
    .where('phone_numbers.user_id', userId)
    .modify('held')
    .orderBy('phone_numbers.id') as (PhoneNumber & { onInbound: boolean })[];
  const list = rows.map((number) => ({ number, isAvailable: number.type !== 'caller_id' && !number.onInbound }));
  return type === 'inbound' ? list.filter((entry) => entry.isAvailable) : list;
}

/** A number of the user's that is theirs now: not being bought, not released, not a failed purchase. */
export async function findOwnNumber(knex: Knex, userId: number, id: number): Promise<PhoneNumber | undefined> {
  return PhoneNumber.query(knex).modify('held').findOne({ id, userId });
}

/** The user's numbers, oldest first. */
export async function ownedNumbers(knex: Knex, userId: number): Promise<PhoneNumber[]> {
  return PhoneNumber.query(knex).modify('held').where({ userId }).orderBy('id');
}

/** Numbers that can send messages: SMS-capable, with a paid-up subscription (or not bought: SIP, caller ID). */
export async function smsNumbers(knex: Knex, userId: number): Promise<PhoneNumber[]> {
  return PhoneNumber.query(knex).where({ userId, smsCapable: true, status: 'active' }).orderBy('id');
}

export async function renameNumber(knex: Knex, userId: number, id: number, nickname: string | null): Promise<PhoneNumber> {
  const number = await findOwnNumber(knex, userId, id);
  if (!number) throw new NotFoundError(NOT_FOUND);
  return number.$query(knex).patchAndFetch({ nickname: nickname === '' ? null : nickname });
}

/**
 * A bought number is released at the end of its paid period by its subscription workflow (`tellRelease`);
 * a SIP trunk or caller ID goes at once. Assistants lose the number either way; calls keep their history.
 */
export async function releaseNumber(deps: { knex: Knex; tellRelease: (phoneNumberId: number) => Promise<void> }, userId: number, id: number): Promise<'scheduled' | 'deleted'> {
  const { knex } = deps;
  const number = await findOwnNumber(knex, userId, id);
  if (!number) throw new NotFoundError(NOT_FOUND);
  if (number.type !== 'normal') {
    await PhoneNumber.query(knex).deleteById(id);
    return 'deleted';
  }
  const marked = await PhoneNumber.query(knex).patch({ releaseRequestedAt: new Date() }).where({ id }).whereNull('release_requested_at');
  if (marked === 0) throw new BadRequestError(ALREADY_RELEASING);
  await deps.tellRelease(id);
  return 'scheduled';
}
