import type { Knex } from 'knex';
import type { Config } from '../../config.ts';
import type { Clock } from '../../lib/clock.ts';
import { ForbiddenError, TooManyRequestsError, UnauthenticatedError, ValidationError } from '../../lib/errors.ts';
import { verifyPassword } from '../../lib/passwords.ts';
import { isTimeZone } from '../../lib/time.ts';
import { sha256Hex } from '../../lib/tokens.ts';
import type { User } from '../users/model.ts';
import { createUser, findUserByEmail } from '../users/service.ts';
import { issueToken, revokeToken } from './tokens.ts';

export interface AuthDeps {
  knex: Knex;
  config: Pick<Config, 'auth'>;
  /** Decides when session tokens expire and lockouts end. */
  now: Clock;
}

export class InvalidCredentialsError extends UnauthenticatedError {
  constructor() {
    super('Invalid credentials.');
  }
}

export async function register(
  deps: AuthDeps,
  input: { name: string; email: string; password: string; timezone?: string | undefined },
): Promise<{ user: User; token: string }> {
  if (!deps.config.auth.allowRegistration) throw new ForbiddenError('Registration is disabled.');
  if (input.timezone !== undefined && !isTimeZone(input.timezone)) {
    throw ValidationError.of('timezone', 'The timezone field must be a valid timezone.');
  }
  const user = await createUser(deps.knex, { ...input, creditMicros: deps.config.auth.signupCreditMicros, creditKind: 'signup_credit' });
  const { token } = await issueSessionToken(deps, user.id, 'api-token');
  return { user, token };
}

export function issueSessionToken(deps: AuthDeps, userId: number, name: string): ReturnType<typeof issueToken> {
  const expiresAt = new Date(deps.now().getTime() + deps.config.auth.sessionTtlSeconds * 1000);
  return issueToken(deps.knex, { userId, kind: 'session', name, expiresAt });
}

/** Failures counted under one key: at `max` in `windowSeconds`, the key is refused for `lockoutSeconds`. */
interface FailureBudget {
  key: string;
  max: number;
  windowSeconds: number;
  lockoutSeconds: number;
}

/**
 * The two budgets a login draws on: per email and client address (a few tries, then a lockout), and per
 * account from every address (a larger budget over a longer window, then a short lockout), so that an
 * attacker with many addresses cannot guess at one account faster than one try per short lockout, while
 * nobody can lock its owner out for longer than that lockout after the guessing stops (docs/decisions.md).
 */
function failureBudgets(config: AuthDeps['config']['auth'], email: string, clientIp: string): FailureBudget[] {
  const account = email.trim().toLowerCase();
  return [
    {
      key: sha256Hex(`${account}|${clientIp}`),
      max: config.loginMaxAttempts,
      windowSeconds: config.loginLockoutSeconds,
      lockoutSeconds: config.loginLockoutSeconds,
    },
    {
      key: sha256Hex(`account|${account}`),
      max: config.loginAccountMaxAttempts,
      windowSeconds: config.loginAccountWindowSeconds,
      lockoutSeconds: config.loginAccountLockoutSeconds,
    },
  ];
}

/** Refuses with 429 while any of the keys is locked out, with the longest wait. */
async function ensureNotLockedOut(knex: Knex, keys: string[], now: Date): Promise<void> {
  const rows = await knex('login_failures').whereIn('key', keys).whereNotNull('locked_until') as { lockedUntil: Date }[];
  const until = Math.max(...rows.map((row) => row.lockedUntil.getTime()));
  if (until > now.getTime()) throw new TooManyRequestsError(Math.ceil((until - now.getTime()) / 1000));
}

/**
 * Counts a failure in a window that starts at the key's first failure; reaching the budget locks the key, and
 * every further failure in the same window locks it again.
 */
async function recordFailure(knex: Knex, budget: FailureBudget, now: Date): Promise<void> {
  const windowStart = new Date(now.getTime() - budget.windowSeconds * 1000);
  const lockedUntil = new Date(now.getTime() + budget.lockoutSeconds * 1000);
  await knex.raw(
    `insert into login_failures (key, attempts, first_failed_at, locked_until)
     values (:key, 1, :now, case when 1 >= :max then cast(:lockedUntil as timestamptz) end)
     on conflict (key) do update set
       attempts = case when login_failures.first_failed_at < :windowStart then 1 else login_failures.attempts + 1 end,
       first_failed_at = case when login_failures.first_failed_at < :windowStart then :now else login_failures.first_failed_at end,
       locked_until = case
         when (case when login_failures.first_failed_at < :windowStart then 1 else login_failures.attempts + 1 end) >= :max
         then cast(:lockedUntil as timestamptz) end`,
    { key: budget.key, now, max: budget.max, lockedUntil, windowStart },
  );
}

export async function login(
  deps: AuthDeps,
  input: { email: string; password: string; token_name?: string | undefined },
  clientIp: string,
  /** A white-label login (anchor §3.4): only a user of this admin's platform can log in; any other is unknown. */
  platformOwnerId?: number,
): Promise<{ user: User; token: string; tokenName: string }> {
  const now = deps.now();
  const budgets = failureBudgets(deps.config.auth, input.email, clientIp);
  const keys = budgets.map((budget) => budget.key);
  await ensureNotLockedOut(deps.knex, keys, now);
  const found = await findUserByEmail(deps.knex, input.email);
  const user = platformOwnerId === undefined || found?.whiteLabelOwnerId === platformOwnerId ? found : undefined;
  // verifyPassword checks a decoy hash when there is no user, so both failures take the same time.
  const valid = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !valid) {
    for (const budget of budgets) await recordFailure(deps.knex, budget, now);
    throw new InvalidCredentialsError();
  }
  await deps.knex('login_failures').whereIn('key', keys).delete();
  const tokenName = input.token_name ?? 'api-token';
  const { token } = await issueSessionToken(deps, user.id, tokenName);
  return { user, token, tokenName };
}

export async function logout(knex: Knex, tokenId: number): Promise<void> {
  await revokeToken(knex, tokenId);
}
