import type { Knex } from 'knex';

/** How a transfer to a number ended, in the words of Twilio's `DialCallStatus`; `requested` while it runs. */
export const PHONE_TRANSFER_STATUSES = ['requested', 'completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type PhoneTransferStatus = (typeof PHONE_TRANSFER_STATUSES)[number];

/** One transfer of a call, as stored in `calls.transfers` and shown with the call (times ISO 8601). */
export type CallTransfer =
  | {
    type: 'phone';
    to: string;
    /** A warm transfer: the person answering heard `message` before the caller was connected. */
    warm: boolean;
    message: string | null;
    status: PhoneTransferStatus;
    requested_at: string;
    ended_at: string | null;
    /** Seconds the caller was connected to the number. */
    duration: number | null;
    /** Why Parley could not ask the carrier, when it could not. */
    error: string | null;
  }
  | { type: 'assistant'; assistant_id: number; assistant_name: string; requested_at: string };

/** Appends a transfer to the call's list. */
export async function addTransfer(knex: Knex, callId: number, transfer: CallTransfer): Promise<void> {
  await knex('calls').where({ id: callId })
    .update({ transfers: knex.raw('transfers || ?::jsonb', [JSON.stringify([transfer])]), updatedAt: knex.fn.now() });
}

/**
 * Settles the call's transfer to a number still `requested` (there is one at a time: the call left Parley's
 * engine with it) with its outcome. False when there is none: the call is gone, or the outcome came before.
 */
export async function settlePhoneTransfer(
  knex: Knex, callId: number, outcome: { status: Exclude<PhoneTransferStatus, 'requested'>; duration?: number; error?: string },
): Promise<boolean> {
  return knex.transaction(async (trx) => {
    const row = await trx('calls').where({ id: callId }).forUpdate().first<{ transfers: CallTransfer[] } | undefined>('transfers');
    const transfers = row?.transfers ?? [];
    const index = transfers.findLastIndex((transfer) => transfer.type === 'phone' && transfer.status === 'requested');
    const pending = transfers[index];
    if (!pending || pending.type !== 'phone') return false;
    transfers[index] = { ...pending, status: outcome.status, ended_at: new Date().toISOString(), duration: outcome.duration ?? null, error: outcome.error ?? null };
    await trx('calls').where({ id: callId }).update({ transfers: JSON.stringify(transfers), updatedAt: trx.fn.now() });
    return true;
  });
}

/** What the person answering the call's current transfer hears first (a warm transfer's message); undefined for none. */
export async function transferWhisper(knex: Knex, callId: number): Promise<string | undefined> {
  const row = await knex('calls').where({ id: callId }).first<{ transfers: CallTransfer[] } | undefined>('transfers');
  const transfer = (row?.transfers ?? []).findLast((candidate) => candidate.type === 'phone');
  return transfer?.type === 'phone' && transfer.warm && transfer.message ? transfer.message : undefined;
}
