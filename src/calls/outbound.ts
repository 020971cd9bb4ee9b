import type { Knex } from 'knex';
import { reserveNewCall } from '../billing/call-reservations.ts';
import { claimCallSlot } from '../billing/live-calls.ts';

/**
 * Placing an outbound call, for `make_call` and a campaign's leads alike: the assistant it is placed with, and
 * the call's row created with its slot and first minute taken in the caller's transaction.
 */

/** An assistant as a call is placed with it: its variables, and the number it holds to call from (null: none). */
export interface CallingAssistant {
  id: number;
  name: string;
  variables: Record<string, unknown> | null;
  phoneNumber: string | null;
}

/** The assistant `id` (of `userId`, when given) with the number it holds (`active` or `past_due`); undefined when there is none. */
export async function callingAssistant(knex: Knex, scope: { id: number; userId?: number }): Promise<CallingAssistant | undefined> {
  const query = knex('assistants as a')
    .leftJoin('phone_numbers as n', function heldNumber() {
      this.on('n.id', 'a.phone_number_id').andOnIn('n.status', ['active', 'past_due']);
    })
    .where('a.id', scope.id);
  if (scope.userId !== undefined) query.where('a.user_id', scope.userId);
  return query.first<CallingAssistant | undefined>('a.id', 'a.name', 'a.variables', 'n.phone_number');
}

/** An outbound call to create: who calls whom, with the caller's variables, for a campaign's lead or not. */
export interface OutboundCall {
  userId: number;
  assistant: { id: number; name: string; variables: Record<string, unknown> | null };
  /** E.164: the number called from, and the number called. */
  from: string;
  to: string;
  variables: Record<string, unknown>;
  campaign?: { id: number; name: string; leadId: number };
  /** The share of the plan's concurrent calls, in percent, this call may not take (a campaign's: kept for inbound calls). */
  reservePercent?: number;
}

/**
 * Takes one of the owner's concurrent-call slots (or refuses with 429, UsageLimitError) and the call's first
 * minute of the balance (or refuses with 422, CallUnaffordableError), and creates the call `initiated` in the
 * same transaction: its variables are the assistant's, then the caller's, then `customer_phone`. Its lifecycle,
 * started after the transaction commits, dials it.
 */
export async function createOutboundCall(trx: Knex.Transaction, call: OutboundCall): Promise<number> {
  await claimCallSlot(trx, call.userId, 'owner', call.reservePercent);
  const reservation = await reserveNewCall(trx, call.userId, call.assistant.id);
  const [row] = await trx('calls').insert({
    ...reservation,
    userId: call.userId,
    assistantId: call.assistant.id,
    assistantName: call.assistant.name,
    type: 'outbound',
    status: 'initiated',
    assistantPhoneNumber: call.from,
    clientPhoneNumber: call.to,
    variables: JSON.stringify({ ...call.assistant.variables, ...call.variables, customer_phone: call.to }),
    ...(call.campaign ? { campaignId: call.campaign.id, campaignName: call.campaign.name, leadId: call.campaign.leadId } : {}),
  }).returning<{ id: number }[]>('id');
  return Number(row?.id);
}
