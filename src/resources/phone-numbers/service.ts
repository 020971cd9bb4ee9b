import type { Knex } from 'knex';
import { PhoneNumber } from './model.ts';

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
    .orderBy('phone_numbers.id') as (PhoneNumber & { onInbound: boolean })[];
  const list = rows.map((number) => ({ number, isAvailable: number.type !== 'caller_id' && !number.onInbound }));
  return type === 'inbound' ? list.filter((entry) => entry.isAvailable) : list;
}

export async function findOwnNumber(knex: Knex, userId: number, id: number): Promise<PhoneNumber | undefined> {
  return PhoneNumber.query(knex).findOne({ id, userId });
}
