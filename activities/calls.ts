import { Context } from '@temporalio/activity';
import type { Knex } from 'knex';
import { callTranscript, type SpokenTurn } from '../src/agent/transcript.ts';
import { billableSeconds, callCostMicros, startedSeconds } from '../src/billing/call-pricing.ts';
import { firstReservationOf } from '../src/billing/call-reservations.ts';
import { lockCallOwner } from '../src/billing/live-calls.ts';
import { recordEntry } from '../src/billing/ledger.ts';
import type { Config } from '../src/config.ts';
import { NotFoundError } from '../src/lib/errors.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import type { HangUpOutcome } from '../src/providers/media-control/index.ts';
import { evaluateCallRecord } from './call-evaluation.ts';

/** The contract's statuses a call can end in. */
export type FinalCallStatus = 'completed' | 'ended' | 'ended_by_customer' | 'ended_by_assistant' | 'failed' | 'busy' | 'no-answer';

// The engine's end reasons that are a call running its course under the platform's rules, or handed over
// to a number by the assistant (the transfer's own outcome is recorded with it).
const completedReasons = new Set(['max_duration', 'silence_timeout', 'balance_exhausted', 'transferred']);

/**
 * The status a call ends in, from its end reason (docs/decisions.md, "Call statuses"): a phone call the callee
 * never answered is `busy` or `no-answer` as the carrier said; any other call that never connected failed; the
 * customer's or the assistant's hang-up says who ended it (the assistant hangs up on a voicemail box, after its
 * message if it leaves one); a limit reached completed it; anything else (an error, a lost session, a request
 * to end it) ended it.
 */
export function finalCallStatus(reason: string, answered: boolean): FinalCallStatus {
  if (!answered) return reason === 'busy' || reason === 'no-answer' ? reason : 'failed';
  if (reason === 'customer_hangup') return 'ended_by_customer';
  if (reason === 'assistant_end_call' || reason === 'voicemail') return 'ended_by_assistant';
  return completedReasons.has(reason) ? 'completed' : 'ended';
}

/**
 * A call ready to connect: its time limit, whether it is on the phone network (`phone`: the carrier's status
 * callbacks follow it and its line is dropped there), whether Parley dials it (`dial`: outbound), and whether
 * its assistant hangs up on a voicemail box (`end_call_on_voicemail`).
 */
export type PreparedCall =
  | { outcome: 'ready'; maxSeconds: number; phone: boolean; dial: boolean; endCallOnVoicemail: boolean }
  | { outcome: 'refused'; reason: 'insufficient_balance' | 'assistant_deleted' };

export interface FinalizedCall {
  status: FinalCallStatus | 'deleted';
  /** Whether the post-call evaluation runs: a connected call with words, whose assistant wants one. */
  evaluate: boolean;
  /** Set when the call's assistant has its post-call webhook on: the lifecycle's last step queues it then. */
  webhook?: true;
}

interface PreparingRow {
  type: string;
  maxSeconds: number | null;
  maxDurationSeconds: number | null;
  assistantId: number | null;
  maxDuration: number | null;
  endCallOnVoicemail: boolean | null;
}

interface FinalizingRow {
  id: number;
  userId: number;
  type: string;
  status: string;
  answeredBy: string | null;
  answeredAt: Date | null;
  endedAt: Date | null;
  mediaSeenAt: Date | null;
  turns: SpokenTurn[];
  transcript: string;
  maxSeconds: number | null;
  pricePerMinuteMicros: number | null;
  planPrice: number;
  postCallEvaluation: boolean | null;
  isWebhookActive: boolean | null;
}

/** The activity's cancellation, when it runs as one (the integration tests call activities directly). */
export function cancellationSignal(): AbortSignal | undefined {
  try {
    return Context.current().cancellationSignal;
  } catch {
    return undefined;
  }
}

/**
 * When a call ended: as reported, but a call whose media session was lost (its process died, or was found gone
 * when hung up) ended no later than the session's last report that it was alive (`media_seen_at`), which is
 * all it is billed for.
 */
function endOf(reason: string, reported: Date, mediaSeenAt: Date | null): Date {
  return reason === 'media_lost' && mediaSeenAt !== null && mediaSeenAt < reported ? mediaSeenAt : reported;
}

const callTypeNames: Record<string, string> = { web: 'Web call', inbound: 'Inbound call', outbound: 'Outbound call' };

export interface CallActivityDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'llm'>;
  providers: Pick<Providers, 'llm' | 'mediaControl'>;
  /** Told, without being awaited, that a call's cost was charged (auto-recharge checks its threshold). */
  afterCharge?: (userId: number) => Promise<void>;
}

export function createCallActivities(deps: CallActivityDependencies) {
  const { knex, providers } = deps;

  return {
    /**
     * The call's time limit: what it may last at most (its `max_duration_seconds`, the assistant's
     * max_call_duration when it was created), the workflow's backstop timer being set from it. A call is created
     * with its first minute reserved of the balance (billing/call-reservations.ts); one created before that was
     * done (no reservation yet) reserves it here, under the owner's lock, or is refused when the balance left
     * beside the owner's other live calls does not pay for it. A call already prepared (a retried attempt) keeps
     * what was written.
     */
    async prepareCall({ callId }: { callId: number }): Promise<PreparedCall> {
      return knex.transaction(async (trx): Promise<PreparedCall> => {
        const owner = await trx('calls').where({ id: callId }).first<{ userId: number } | undefined>('userId');
        if (!owner) throw new NotFoundError(`Call ${callId} no longer exists.`);
        await lockCallOwner(trx, owner.userId);
        // Read under the lock: an attempt retried while its first still runs sees what the first wrote.
        const row = await trx('calls as c')
          .leftJoin('assistants as a', 'a.id', 'c.assistant_id')
          .where('c.id', callId)
          .first<PreparingRow | undefined>('c.type', 'c.max_seconds', 'c.max_duration_seconds', 'a.id as assistant_id', 'a.max_duration', 'a.end_call_on_voicemail');
        if (!row) throw new NotFoundError(`Call ${callId} no longer exists.`);
        const ready = { outcome: 'ready', phone: row.type !== 'web', dial: row.type === 'outbound', endCallOnVoicemail: row.endCallOnVoicemail === true } as const;
        // Calls prepared before reservations grew a minute at a time reserved their whole limit: max_seconds.
        if (row.maxSeconds !== null) return { ...ready, maxSeconds: row.maxDurationSeconds ?? row.maxSeconds };
        if (row.assistantId === null || row.maxDuration === null) return { outcome: 'refused', reason: 'assistant_deleted' };
        const reservation = await firstReservationOf(trx, owner.userId, row.maxDuration, callId);
        if (!reservation) return { outcome: 'refused', reason: 'insufficient_balance' };
        await trx('calls').where({ id: callId }).update({ ...reservation, updatedAt: trx.fn.now() });
        return { ...ready, maxSeconds: reservation.maxDurationSeconds };
      });
    },

    /** Who answered an outbound call (`answered_by`), as the workflow judged the verdicts it was told. */
    async recordAnsweredBy({ callId, answeredBy }: { callId: number; answeredBy: 'human' | 'machine' | 'unknown' }): Promise<void> {
      const updated = await knex('calls').where({ id: callId, type: 'outbound' }).update({ answeredBy, updatedAt: knex.fn.now() });
      if (updated === 0 && !(await knex('calls').where({ id: callId }).first('id'))) throw new NotFoundError(`Call ${callId} no longer exists.`);
    },

    /** The call is live: `in-progress`, answered at the time the media gateway reported. Once only. */
    async markAnswered({ callId, at }: { callId: number; at: string }): Promise<void> {
      const updated = await knex('calls').where({ id: callId }).whereNull('answeredAt').whereNull('endedAt')
        .update({ status: 'in-progress', answeredAt: new Date(at), updatedAt: knex.fn.now() });
      if (updated === 0 && !(await knex('calls').where({ id: callId }).first('id'))) throw new NotFoundError(`Call ${callId} no longer exists.`);
    },

    /** Asks the media replica holding the call's session to end it; without a recorded replica, it is gone. */
    async requestHangup({ callId, reason }: { callId: number; reason: string }): Promise<HangUpOutcome> {
      const row = await knex('calls').where({ id: callId }).first<{ mediaSessionUrl: string | null } | undefined>('mediaSessionUrl');
      if (!row) throw new NotFoundError(`Call ${callId} no longer exists.`);
      if (!row.mediaSessionUrl) return 'gone';
      const signal = cancellationSignal();
      return providers.mediaControl.hangUp({ sessionUrl: row.mediaSessionUrl, callId, reason, ...(signal ? { signal } : {}) });
    },

    /**
     * Ends the call's record: its status from the reason, when it ended (a session lost without a word, at the
     * last moment it was known alive), its duration (started seconds from the answer), its transcript from the
     * turns, and its cost (never past what it reserved) with the one ledger entry `call-<id>`, all in one
     * transaction: the charge replaces the call's reservation at once. A call already finalized is left as it
     * is: a retried attempt charges nothing more.
     */
    async finalizeCall({ callId, reason, endedAt }: { callId: number; reason: string; endedAt: string }): Promise<FinalizedCall> {
      let chargedUserId: number | undefined;
      const finalized = await knex.transaction(async (trx): Promise<FinalizedCall> => {
        const row = await trx('calls as c')
          .join('users as u', 'u.id', 'c.user_id')
          .join('plans as p', 'p.id', 'u.plan_id')
          .leftJoin('assistants as a', 'a.id', 'c.assistant_id')
          .where('c.id', callId)
          .forUpdate('c')
          .first<FinalizingRow | undefined>(
            'c.id', 'c.user_id', 'c.type', 'c.status', 'c.answered_by', 'c.answered_at', 'c.ended_at', 'c.media_seen_at', 'c.turns', 'c.transcript',
            'c.max_seconds', 'c.price_per_minute_micros', 'p.call_price_per_minute_micros as plan_price', 'a.post_call_evaluation',
            'a.is_webhook_active',
          );
        if (!row) return { status: 'deleted', evaluate: false };
        const answered = row.answeredAt !== null;
        const webhook = row.isWebhookActive === true ? { webhook: true as const } : {};
        if (row.endedAt !== null) {
          return { status: row.status as FinalCallStatus, evaluate: answered && row.postCallEvaluation === true && row.transcript !== '', ...webhook };
        }
        const ended = endOf(reason, new Date(endedAt), row.mediaSeenAt);
        const status = finalCallStatus(reason, answered);
        const duration = row.answeredAt ? startedSeconds(row.answeredAt, ended) : 0;
        const cost = callCostMicros(billableSeconds(duration, row.maxSeconds), Number(row.pricePerMinuteMicros ?? row.planPrice));
        const transcript = callTranscript(row.turns);
        if (cost > 0) {
          // The call has happened: its cost is recorded even where other spending has since emptied the balance.
          await recordEntry(trx, {
            userId: row.userId,
            amountMicros: -cost,
            kind: 'call',
            reference: `call:${callId}`,
            description: `${callTypeNames[row.type] ?? 'Call'}, ${duration} s`,
            idempotencyKey: `call-${callId}`,
          });
          chargedUserId = row.userId;
        }
        await trx('calls').where({ id: callId }).update({
          status,
          endReason: reason,
          endedAt: ended,
          duration,
          transcript,
          totalCostMicros: cost,
          // An outbound call answered without a verdict on who answered (the callee hung up first): nobody can tell.
          answeredBy: row.answeredBy ?? (answered && row.type === 'outbound' ? 'unknown' : null),
          mediaTokenHash: null,
          mediaTokenExpiresAt: null,
          updatedAt: trx.fn.now(),
        });
        return { status, evaluate: answered && row.postCallEvaluation === true && transcript !== '', ...webhook };
      });
      if (chargedUserId !== undefined) void deps.afterCharge?.(chargedUserId);
      return finalized;
    },

    /** The post-call evaluation (call-evaluation.ts); a failing model leaves none and is logged. */
    async evaluateCall({ callId }: { callId: number }): Promise<{ evaluated: boolean }> {
      return evaluateCallRecord(deps, callId, cancellationSignal());
    },
  };
}
