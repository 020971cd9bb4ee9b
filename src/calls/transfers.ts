import type { Knex } from 'knex';

/** How a transfer to a number ended, in the words of Twilio's `DialCallStatus`; `requested` while it runs. */
export const PHONE_TRANSFER_STATUSES = ['requested', 'completed', 'answered', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type PhoneTransferStatus = (typeof PHONE_TRANSFER_STATUSES)[number];

/**
 * How a warm transfer to a supervisor stands: `requested` while the supervisor is rung, `connected` once they
 * were briefed and bridged to the caller, then the outcome (the supervisor's call status, in Twilio's words):
 * `completed` after a bridged conversation; `busy`, `no-answer`, `failed` when the supervisor never took the
 * call (the caller is told and the call ends); `canceled` when the caller hung up first.
 */
export const SUPERVISOR_TRANSFER_STATUSES = ['requested', 'connected', 'completed', 'busy', 'no-answer', 'failed', 'canceled'] as const;
export type SupervisorTransferStatus = (typeof SUPERVISOR_TRANSFER_STATUSES)[number];

/** A warm transfer to a supervisor (`warm_call_transfer`), as stored in `calls.transfers`. */
export interface SupervisorCallTransfer {
  type: 'supervisor';
  /** The supervisor's number, and the number they saw calling. */
  to: string;
  caller_id: string;
  /** What the supervisor heard before the caller was connected: the opening words and the summary. */
  briefing: string;
  /** `model`: the summary was written by the assistant's model; `last_turns`: it failed, the last turns stood in. */
  summary_source: 'model' | 'last_turns';
  /** What the caller hears when the supervisor is connected. */
  connected_message: string;
  /** The hold music's volume (0-100) the caller heard while waiting; null: silence. */
  hold_music_volume: number | null;
  status: SupervisorTransferStatus;
  requested_at: string;
  /** When the supervisor was bridged to the caller. */
  connected_at: string | null;
  ended_at: string | null;
  /** Seconds of the supervisor's call, briefing included. */
  duration: number | null;
  /** Why Parley could not ask the carrier, when it could not. */
  error: string | null;
  /** The carrier's id of the supervisor's call, once placed. */
  supervisor_call_id: string | null;
}

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
  | SupervisorCallTransfer
  | { type: 'assistant'; assistant_id: number; assistant_name: string; requested_at: string };

/**
 * The reads and writes of a call's transfers (`calls.transfers`): the media role checks the call and records
 * each transfer before it asks the carrier; the carrier's callbacks settle it.
 */

/** What a transfer to a number needs of its call: the carrier's id of it and the number it calls from. */
export async function callToTransfer(knex: Knex, callId: number): Promise<{ providerCallId: string | null; assistantPhoneNumber: string | null } | undefined> {
  return knex('calls').where({ id: callId }).first<{ providerCallId: string | null; assistantPhoneNumber: string | null } | undefined>('providerCallId', 'assistantPhoneNumber');
}

/** What a warm transfer needs of its call: the carrier's id of it, the caller's number, and how long its assistant's calls ring. */
export async function callToWarmTransfer(
  knex: Knex, callId: number,
): Promise<{ providerCallId: string | null; clientPhoneNumber: string | null; ringingTime: number | null } | undefined> {
  return knex('calls').leftJoin('assistants', 'assistants.id', 'calls.assistantId').where('calls.id', callId)
    .first<{ providerCallId: string | null; clientPhoneNumber: string | null; ringingTime: number | null } | undefined>(
      'calls.providerCallId', 'calls.clientPhoneNumber', 'assistants.ringingTime',
    );
}

/** The account's number (by its id) a supervisor is called from; undefined once the account no longer has it. */
export async function supervisorCallingNumber(knex: Knex, userId: number, phoneNumberId: number): Promise<string | undefined> {
  const row = await knex('phone_numbers').where({ id: phoneNumberId, userId }).whereNull('releasedAt').first<{ phoneNumber: string } | undefined>('phoneNumber');
  return row?.phoneNumber;
}

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

/** The call's warm transfer still running (`requested` or `connected`): there is one at a time. */
function runningSupervisorTransfer(transfers: CallTransfer[]): number {
  return transfers.findLastIndex((transfer) => transfer.type === 'supervisor' && (transfer.status === 'requested' || transfer.status === 'connected'));
}

/** The call's warm transfer still running, to read its briefing and room; undefined when there is none. */
export async function currentSupervisorTransfer(knex: Knex, callId: number): Promise<SupervisorCallTransfer | undefined> {
  const row = await knex('calls').where({ id: callId }).first<{ transfers: CallTransfer[] } | undefined>('transfers');
  const transfers = row?.transfers ?? [];
  const found = transfers[runningSupervisorTransfer(transfers)];
  return found?.type === 'supervisor' ? found : undefined;
}

/**
 * Changes the call's running warm transfer as `change` says, given it as it stands; answers it as it was, or
 * undefined when none was running (its outcome came before).
 */
async function changeSupervisorTransfer(
  knex: Knex, callId: number, change: (running: SupervisorCallTransfer) => SupervisorCallTransfer,
): Promise<SupervisorCallTransfer | undefined> {
  return knex.transaction(async (trx) => {
    const row = await trx('calls').where({ id: callId }).forUpdate().first<{ transfers: CallTransfer[] } | undefined>('transfers');
    const transfers = row?.transfers ?? [];
    const index = runningSupervisorTransfer(transfers);
    const running = transfers[index];
    if (running?.type !== 'supervisor') return undefined;
    transfers[index] = change(running);
    await trx('calls').where({ id: callId }).update({ transfers: JSON.stringify(transfers), updatedAt: trx.fn.now() });
    return running;
  });
}

/**
 * Moves the call's running warm transfer on: to `connected` (the supervisor was briefed), or to its outcome.
 * Answers the transfer as it was before, or undefined when none was running (the outcome came before).
 */
export function advanceSupervisorTransfer(
  knex: Knex, callId: number, next: { status: Exclude<SupervisorTransferStatus, 'requested'>; duration?: number; error?: string },
): Promise<SupervisorCallTransfer | undefined> {
  const now = new Date().toISOString();
  return changeSupervisorTransfer(knex, callId, (running) => (next.status === 'connected'
    ? { ...running, status: 'connected', connected_at: now }
    : { ...running, status: next.status, ended_at: now, duration: next.duration ?? null, error: next.error ?? running.error }));
}

/** Keeps the carrier's id of the supervisor's call on the running warm transfer, to cancel it if the caller leaves. */
export async function noteSupervisorCall(knex: Knex, callId: number, supervisorCallId: string): Promise<void> {
  await changeSupervisorTransfer(knex, callId, (running) => ({ ...running, supervisor_call_id: supervisorCallId }));
}
