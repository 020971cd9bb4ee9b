import type { Knex } from 'knex';

/**
 * What the media role reads and records of a call while its session runs: the call as its session starts, the
 * replica serving it, its recording, its turns and the reports that it is alive; and the claim on calls whose
 * session was lost, which a worker or a restarted media process ends.
 */

/** How long a call waits for its workflow to set the call's time limit before it starts without it. */
const limitWaitMs = 3000;

/** A call as its session starts: what it is, whom it runs with, and how long it may last. */
export interface SessionCall {
  id: number;
  type: string;
  assistantId: number | null;
  variables: Record<string, unknown>;
  /** What the call has reserved of the balance so far, in seconds. */
  maxSeconds: number | null;
  /** The most it may last; null for a call that reserved its whole limit (`max_seconds`) when it was prepared. */
  maxDurationSeconds: number | null;
  /** `balance` when the balance, not the assistant, sets the limit (billing/call-pricing.ts). */
  limitReason: string | null;
  /** The assistant's `max_call_duration`, for a call whose workflow has not set its limit. */
  maxDuration: number | null;
  endedAt: Date | null;
}

/** The call with its time limit, waiting up to limitWaitMs for one whose workflow has not set it yet. */
export async function callWithLimit(knex: Knex, callId: number): Promise<SessionCall | undefined> {
  const read = () => knex('calls as c').leftJoin('assistants as a', 'a.id', 'c.assistant_id').where('c.id', callId)
    .first<SessionCall | undefined>('c.id', 'c.type', 'c.assistant_id', 'c.variables', 'c.max_seconds', 'c.max_duration_seconds', 'c.limit_reason', 'a.max_duration', 'c.ended_at');
  const until = Date.now() + limitWaitMs;
  let row = await read();
  // Calls are created with their limit; one created before that was done has it from its workflow's first step.
  while (row && row.maxSeconds === null && row.endedAt === null && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    row = await read();
  }
  return row;
}

/** Records the replica serving the call (`media_session_url`, where its workflow asks for a hang-up) and the session as alive. */
export async function recordMediaSession(knex: Knex, callId: number, sessionUrl: string): Promise<void> {
  await knex('calls').where({ id: callId }).update({ mediaSessionUrl: sessionUrl, mediaSeenAt: new Date(), updatedAt: knex.fn.now() });
}

/** Records where the call's recording is stored; false when the call was deleted while it ran. */
export async function storeRecordingKey(knex: Knex, callId: number, key: string): Promise<boolean> {
  return (await knex('calls').where({ id: callId }).update({ recordingKey: key, updatedAt: knex.fn.now() })) > 0;
}

/** Appends a turn to the call's `turns`, as the voice engine hands it (voice/hooks.ts CallTurn), which the API shows as it is. */
export async function appendTurn(knex: Knex, callId: number, turn: object): Promise<void> {
  await knex('calls').where({ id: callId }).update({ turns: knex.raw('turns || ?::jsonb', [JSON.stringify([turn])]), updatedAt: knex.fn.now() });
}

/** Reports the calls' sessions alive (`media_seen_at`, on the media process's clock, as the calls' answer and end times are). */
export async function reportSessionsAlive(knex: Knex, callIds: number[]): Promise<void> {
  await knex('calls').whereIn('id', callIds).whereNull('endedAt').update({ mediaSeenAt: new Date() });
}

/**
 * The live calls whose session is lost: silent since before `staleBefore`, or (`sessionUrl`) held by an
 * earlier run of a media process at that address, reported no later than `seenBefore`, its start.
 */
export type LostCalls = { staleBefore: Date } | { sessionUrl: string; seenBefore: Date };

/**
 * Claims at most `limit` of the calls whose session is lost by marking them (`media_lost_at`), so each is claimed
 * once whoever else looks; answers them with their session's last report.
 */
export async function claimLostCalls(knex: Knex, which: LostCalls, limit: number): Promise<{ id: number; mediaSeenAt: Date }[]> {
  const lost = knex('calls').select('id').whereNull('endedAt').whereNull('mediaLostAt').limit(limit);
  if ('staleBefore' in which) lost.where('mediaSeenAt', '<', which.staleBefore);
  else lost.where({ mediaSessionUrl: which.sessionUrl }).where('mediaSeenAt', '<=', which.seenBefore);
  return knex('calls').whereIn('id', lost).whereNull('mediaLostAt').update({ mediaLostAt: new Date() }).returning(['id', 'mediaSeenAt']);
}

/** Gives up the claim on a lost call, for the next look to take it again. */
export async function releaseLostCall(knex: Knex, callId: number): Promise<void> {
  await knex('calls').where({ id: callId }).update({ mediaLostAt: null });
}
