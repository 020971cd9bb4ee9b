import type { Knex } from 'knex';
import type { Clock } from '../lib/clock.ts';
import { asynchronousCommit } from './commit.ts';
import { prepared } from './prepared.ts';

/** At most `limit` requests per `periodMs`, of which all `limit` may come at once. */
export interface RateLimit {
  limit: number;
  periodMs: number;
}

/** The answer to one request under a limit. */
export interface RateDecision {
  allowed: boolean;
  /** How many more requests would be allowed right now. */
  remaining: number;
  /** When refused: whole seconds until the next request is allowed (at least 1); 0 when allowed. */
  retryAfterSeconds: number;
}

/** Counts requests per key; a refused request is not counted, so waiting Retry-After is enough. */
export interface RateLimiter {
  hit(key: string, limit: RateLimit): Promise<RateDecision>;
}

// Arrival times are sums of fractional intervals: allow for the last bits of a double (and of PostgreSQL's).
const TOLERANCE_MS = 0.001;
const SWEEP_EVERY_MS = 60_000;

function emissionInterval({ limit, periodMs }: RateLimit): number {
  return periodMs / limit;
}

/** The decision once the key's theoretical arrival time has moved on to `arrival`. */
function admitted(arrival: number, now: number, limit: RateLimit): RateDecision {
  const remaining = Math.floor((limit.periodMs - (arrival - now)) / emissionInterval(limit) + TOLERANCE_MS);
  return { allowed: true, remaining: Math.max(remaining, 0), retryAfterSeconds: 0 };
}

/** The decision when the key's arrival time `arrival` is too far ahead for one more request. */
function refused(arrival: number, now: number, limit: RateLimit): RateDecision {
  const waitMs = arrival + emissionInterval(limit) - limit.periodMs - now;
  return { allowed: false, remaining: 0, retryAfterSeconds: Math.max(Math.ceil(waitMs / 1000), 1) };
}

/**
 * GCRA, the generic cell rate algorithm (a token bucket kept as one number): each allowed request moves the
 * key's theoretical arrival time one interval (period / limit) on from the later of itself and now; a request
 * is allowed while that time stays within one period of now. A burst takes at most `limit` at once and then
 * one per interval, so no window boundary lets twice the limit through, and a refusal says exactly when to
 * come back (at most one interval).
 */
export function gcra(arrival: number | undefined, now: number, limit: RateLimit): { decision: RateDecision; arrival: number | undefined } {
  const next = Math.max(arrival ?? now, now) + emissionInterval(limit);
  if (next - now > limit.periodMs + TOLERANCE_MS) return { decision: refused(arrival ?? now, now, limit), arrival };
  return { decision: admitted(next, now, limit), arrival: next };
}

/** Every key in this process's memory: right when this process is the only one that serves requests. */
export function inProcessRateLimiter(clock: Clock): RateLimiter {
  const arrivals = new Map<string, number>();
  let sweptAt = clock().getTime();
  return {
    hit(key, limit) {
      const now = clock().getTime();
      if (now - sweptAt >= SWEEP_EVERY_MS) {
        sweptAt = now;
        // A key whose arrival time has passed is a full bucket: forgetting it changes nothing.
        for (const [stale, arrival] of arrivals) if (arrival < now) arrivals.delete(stale);
      }
      const { decision, arrival } = gcra(arrivals.get(key), now, limit);
      if (arrival !== undefined) arrivals.set(key, arrival);
      return Promise.resolve(decision);
    },
  };
}

/**
 * Every key in the `rate_limits` table, so all API replicas share one count: one statement per request,
 * which moves the key's arrival time only if the request is allowed (the `where` of the upsert) and also
 * reads the time as it was, for the Retry-After of a refusal. It commits without waiting for the disk
 * (db/commit.ts): a server that crashes may forget the last moment's counts, which lets a client a few requests
 * more, while waiting would hold the key's row, which every request of a client takes in turn, for an fsync each.
 */
export function postgresRateLimiter(knex: Knex, clock: Clock): RateLimiter {
  let sweptAt = clock().getTime();
  return {
    async hit(key, limit) {
      const now = clock().getTime();
      if (now - sweptAt >= SWEEP_EVERY_MS) {
        sweptAt = now;
        await knex('rate_limits').where('arrival_ms', '<', now).delete();
      }
      // Every request runs it: prepared once per connection.
      const { rows } = await prepared('rate-limit-hit', knex.raw<{ rows: { admitted: number | null; previous: number | null }[] }>(`
        with hit as (select cast(:now as float8) as now, cast(:interval as float8) as step, cast(:period as float8) as period),
        admitted as (
          insert into rate_limits as r (key, arrival_ms) select :key, now + step from hit
          on conflict (key) do update set arrival_ms = greatest(r.arrival_ms, (select now from hit)) + (select step from hit)
          where greatest(r.arrival_ms, (select now from hit)) + (select step - now - period from hit) <= 0
          returning arrival_ms
        )
        select (select arrival_ms from admitted) as admitted, (select arrival_ms from rate_limits where key = :key) as previous,
          ${asynchronousCommit()} as asynchronous`,
      { key, now, interval: emissionInterval(limit), period: limit.periodMs + TOLERANCE_MS }));
      const row = rows[0];
      if (row?.admitted != null) return admitted(row.admitted, now, limit);
      let arrival = row?.previous ?? undefined;
      // The statement's snapshot predates a concurrent request that moved the time (the upsert saw it, the
      // read did not): read it again, so the Retry-After is not too short.
      if (gcra(arrival, now, limit).decision.allowed) {
        const current = await knex.raw<{ rows: { arrival: number }[] }>('select arrival_ms as arrival from rate_limits where key = ?', [key]);
        arrival = current.rows[0]?.arrival;
      }
      return refused(arrival ?? now, now, limit);
    },
  };
}

/**
 * The limiter for this deployment: in the database when it is a PostgreSQL server that several processes may
 * share; in this process for the embedded database, which only this process can open (docs/decisions.md).
 */
export function createRateLimiter(deps: { knex: Knex; sharedDatabase: boolean; clock: Clock }): RateLimiter {
  return deps.sharedDatabase ? postgresRateLimiter(deps.knex, deps.clock) : inProcessRateLimiter(deps.clock);
}
