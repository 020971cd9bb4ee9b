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

/** How long units leased from the shared count stay usable in this process. */
const LEASE_MS = 1_000;
/** The most units one lease takes. */
const MOST_LEASED = 100;

/** Units of a key's budget that this process took from the shared count and has not used yet. */
interface Lease {
  /** Units left to use, until `expiresAt`. */
  units: number;
  expiresAt: number;
  /** How many the lease took, and how many of them were used: the next lease's size follows from them. */
  size: number;
  used: number;
  /** The key's arrival time in the table once the lease was taken. */
  arrival: number;
  /** A lease being taken: requests for the key wait for it rather than take one each. */
  pending?: Promise<void>;
}

/**
 * How many units the next lease of a key takes: one for a key without a lease that ended within the last second
 * (a widget's visitor, say), so it costs what it did without leases; twice the last lease's when that was used up;
 * only what was used of it when some expired unused. Never more than a second's worth of the key's rate.
 */
function leaseSize(previous: Lease | undefined, limit: RateLimit): number {
  const most = Math.min(Math.max(Math.floor(limit.limit * LEASE_MS / limit.periodMs), 1), MOST_LEASED);
  if (!previous) return 1;
  if (previous.units > 0) return Math.min(Math.max(previous.used, 1), most);
  return Math.min(previous.size * 2, most);
}

/** A request admitted from a lease: what the shared count allows, plus the units this process still holds. */
function leased(lease: Lease, now: number, limit: RateLimit): RateDecision {
  const decision = admitted(lease.arrival, now, limit);
  return { ...decision, remaining: decision.remaining + lease.units };
}

/**
 * Takes up to `size` units of the key's budget in one statement, which locks the key's row (its `for update`
 * reads the newest time) and moves the time on by the units granted: as many as fit, none when even one does not.
 * It commits without waiting for the disk (db/commit.ts): a server that crashes may forget the last moment's counts,
 * which lets a client a few requests more, while waiting would hold the key's row for an fsync each time.
 */
async function takeLease(knex: Knex, key: string, size: number, now: number, limit: RateLimit): Promise<{ granted: number; arrival: number }> {
  // Every lease runs it: prepared once per connection.
  const { rows } = await prepared('rate-limit-lease', knex.raw<{ rows: { granted: number; arrival: number }[] }>(`
    with hit as (select cast(:now as float8) as now, cast(:interval as float8) as step, cast(:period as float8) as period, cast(:size as int) as size),
    current as (select arrival_ms from rate_limits where key = :key for update),
    lease as (
      select greatest(coalesce((select arrival_ms from current), now), now) as base,
        least(size, floor((now + period - greatest(coalesce((select arrival_ms from current), now), now)) / step))::int as granted
      from hit
    ),
    taken as (
      insert into rate_limits as r (key, arrival_ms) select :key, base + step * granted from lease, hit where granted >= 1
      -- Two first requests of a key at once: the second grants on the newest time, if it still fits.
      on conflict (key) do update set arrival_ms = greatest(r.arrival_ms, (select now from hit)) + (select step * granted from lease, hit)
      where greatest(r.arrival_ms, (select now from hit)) + (select step * granted - now - period from lease, hit) <= 0
      returning arrival_ms
    )
    select case when exists (select from taken) then (select granted from lease) else 0 end as granted,
      coalesce((select arrival_ms from taken), (select base from lease)) as arrival,
      ${asynchronousCommit()} as asynchronous`,
  { key, now, interval: emissionInterval(limit), period: limit.periodMs + TOLERANCE_MS, size }));
  return rows[0]!;
}

/**
 * Every key in the `rate_limits` table, so all API replicas share one count, leased to each process in small
 * blocks: a key's requests take units the process holds, for at most a second, and a statement only when none are
 * left (`leaseSize`: one at a time for a quiet key, up to a second's worth of its rate for a busy one). Leased units
 * are counted when taken, so all replicas together never let more through than the limit allows (plus what was
 * leased in the second before a period), and units that expire unused are lost: a busy key may be refused a little
 * early. A limit of under one request a second is never leased ahead, so it is exact.
 */
export function postgresRateLimiter(knex: Knex, clock: Clock): RateLimiter {
  const leases = new Map<string, Lease>();
  let sweptAt = clock().getTime();
  const hit = async (key: string, limit: RateLimit): Promise<RateDecision> => {
    const now = clock().getTime();
    if (now - sweptAt >= SWEEP_EVERY_MS) {
      sweptAt = now;
      for (const [stale, lease] of leases) if (!lease.pending && lease.expiresAt <= now) leases.delete(stale);
      await knex('rate_limits').where('arrival_ms', '<', now).delete();
    }
    const held = leases.get(key);
    if (held?.pending) {
      await held.pending;
      return hit(key, limit);
    }
    if (held && held.units > 0 && now < held.expiresAt) {
      held.units -= 1;
      held.used += 1;
      return leased(held, now, limit);
    }
    const size = leaseSize(held && now - held.expiresAt < LEASE_MS ? held : undefined, limit);
    let settle!: () => void;
    const lease: Lease = { units: 0, expiresAt: 0, size, used: 0, arrival: now, pending: new Promise((resolve) => (settle = resolve)) };
    leases.set(key, lease);
    try {
      const { granted, arrival } = await takeLease(knex, key, size, now, limit);
      if (granted === 0) {
        leases.delete(key);
        return refused(arrival, now, limit);
      }
      Object.assign(lease, { units: granted - 1, expiresAt: now + LEASE_MS, size: granted, used: 1, arrival });
      return leased(lease, now, limit);
    } catch (error) {
      leases.delete(key);
      throw error;
    } finally {
      delete lease.pending;
      settle();
    }
  };
  return { hit };
}

/**
 * The limiter for this deployment: in the database when it is a PostgreSQL server that several processes may
 * share; in this process for the embedded database, which only this process can open (docs/decisions.md).
 */
export function createRateLimiter(deps: { knex: Knex; sharedDatabase: boolean; clock: Clock }): RateLimiter {
  return deps.sharedDatabase ? postgresRateLimiter(deps.knex, deps.clock) : inProcessRateLimiter(deps.clock);
}
