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

function issueSessionToken(deps: AuthDeps, userId: number, name: string): ReturnType<typeof issueToken> {
  const expiresAt = new Date(deps.now().getTime() + deps.config.auth.sessionTtlSeconds * 1000);
  return issueToken(deps.knex, { userId, kind: 'session', name, expiresAt });
}

function failureKey(email: string, clientIp: string): string {
  return sha256Hex(`${email.trim().toLowerCase()}|${clientIp}`);
}

/** Refuses with 429 while this email and address are locked out after too many failures. */
async function ensureNotLockedOut(knex: Knex, key: string, now: Date): Promise<void> {
  const row = await knex('login_failures').where({ key }).first() as { lockedUntil: Date | null } | undefined;
  if (row?.lockedUntil && row.lockedUntil > now) {
    throw new TooManyRequestsError(Math.ceil((row.lockedUntil.getTime() - now.getTime()) / 1000));
  }
}

/** Counts a failure in a window as long as the lockout; reaching the limit locks the key for that long. */
async function recordFailure(deps: AuthDeps, key: string, now: Date): Promise<void> {
  const { loginMaxAttempts, loginLockoutSeconds } = deps.config.auth;
  const windowStart = new Date(now.getTime() - loginLockoutSeconds * 1000);
  const lockedUntil = new Date(now.getTime() + loginLockoutSeconds * 1000);
  await deps.knex.raw(
    `insert into login_failures (key, attempts, first_failed_at, locked_until)
     values (:key, 1, :now, case when 1 >= :max then cast(:lockedUntil as timestamptz) end)
     on conflict (key) do update set
       attempts = case when login_failures.first_failed_at < :windowStart then 1 else login_failures.attempts + 1 end,
       first_failed_at = case when login_failures.first_failed_at < :windowStart then :now else login_failures.first_failed_at end,
       locked_until = case
         when (case when login_failures.first_failed_at < :windowStart then 1 else login_failures.attempts + 1 end) >= :max
         then cast(:lockedUntil as timestamptz) end`,
    { key, now, max: loginMaxAttempts, lockedUntil, windowStart },
  );
}

export async function login(
  deps: AuthDeps,
  input: { email: string; password: string; token_name?: string | undefined },
  clientIp: string,
): Promise<{ user: User; token: string; tokenName: string }> {
  const now = deps.now();
  const key = failureKey(input.email, clientIp);
  await ensureNotLockedOut(deps.knex, key, now);
  const user = await findUserByEmail(deps.knex, input.email);
  // verifyPassword checks a decoy hash when there is no user, so both failures take the same time.
  const valid = await verifyPassword(input.password, user?.passwordHash);
  if (!user || !valid) {
    await recordFailure(deps, key, now);
    throw new InvalidCredentialsError();
  }
  await deps.knex('login_failures').where({ key }).delete();
  const tokenName = input.token_name ?? 'api-token';
  const { token } = await issueSessionToken(deps, user.id, tokenName);
  return { user, token, tokenName };
}

export async function logout(knex: Knex, tokenId: number): Promise<void> {
  await revokeToken(knex, tokenId);
}
