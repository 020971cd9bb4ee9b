import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClock } from '../support/clock.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

const email = () => `person-${randomUUID()}@example.test`;

describe('POST /api/auth/register', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { SIGNUP_CREDIT_USD: '2.5' } });
  });
  afterAll(() => platform.close());

  it('creates the account, answers 201 with a working session token, and credits the signup amount', async () => {
    const address = email();
    const response = await platform.request('POST', '/auth/register', {
      body: { name: 'Grace Hopper', email: address, password: 'cobol-rules', timezone: 'Europe/Bucharest' },
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      message: 'Registration successful.',
      user: { id: expect.any(Number), name: 'Grace Hopper', email: address },
      token: expect.stringMatching(/^\d+\|[A-Za-z0-9]{40,}$/),
    });
    const me = await platform.request('GET', '/user/me', { token: response.body.token });
    expect(me.body).toEqual({ name: 'Grace Hopper', email: address, total_balance: 2.5 });
    const user = await platform.database.knex('users').where({ id: response.body.user.id }).first();
    expect(user.passwordHash).toMatch(/^\$argon2id\$/);
    expect(user.timezone).toBe('Europe/Bucharest');
  });

  it('refuses an email already taken, whatever its case', async () => {
    const address = email();
    await platform.request('POST', '/auth/register', { body: { name: 'A', email: address, password: 'password1' } });
    const again = await platform.request('POST', '/auth/register', { body: { name: 'B', email: address.toUpperCase(), password: 'password1' } });
    expect(again.status).toBe(422);
    expect(again.body).toEqual({ message: 'The email has already been taken.', errors: { email: ['The email has already been taken.'] } });
  });

  it('answers 422 in Laravel\'s shape for each broken rule, first error first', async () => {
    const response = await platform.request('POST', '/auth/register', {
      body: { name: 'x'.repeat(256), email: 'not-an-email', password: 'short', unknown: 'ignored' },
    });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      message: 'The name field must not be greater than 255 characters. (and 2 more errors)',
      errors: {
        name: ['The name field must not be greater than 255 characters.'],
        email: ['The email field must be a valid email address.'],
        password: ['The password field must be at least 8 characters.'],
      },
    });
  });

  it('says which fields are required', async () => {
    const response = await platform.request('POST', '/auth/register', { body: {} });
    expect(response.status).toBe(422);
    expect(response.body.message).toBe('The name field is required. (and 2 more errors)');
    expect(response.body.errors).toEqual({
      name: ['The name field is required.'],
      email: ['The email field is required.'],
      password: ['The password field is required.'],
    });
  });

  it('takes a name of only spaces as missing, and stores a name without the spaces around it', async () => {
    const blank = await platform.request('POST', '/auth/register', { body: { name: '   ', email: email(), password: 'password1' } });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toEqual({ name: ['The name field is required.'] });
    const padded = await platform.request('POST', '/auth/register', { body: { name: '  Ada Lovelace ', email: email(), password: 'password1' } });
    expect(padded.status).toBe(201);
    expect(padded.body.user.name).toBe('Ada Lovelace');
  });

  it('refuses a time zone that does not exist', async () => {
    const response = await platform.request('POST', '/auth/register', {
      body: { name: 'Tz', email: email(), password: 'password1', timezone: 'Mars/Olympus_Mons' },
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ timezone: ['The timezone field must be a valid timezone.'] });
  });

  it('answers 400 for malformed JSON and 413 for a body over the limit', async () => {
    const malformed = await platform.request('POST', '/auth/register', { body: '{"name": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ message: 'Malformed JSON body.' });
    const huge = await platform.request('POST', '/auth/register', { body: { name: 'x'.repeat(2 * 1024 * 1024) } });
    expect(huge.status).toBe(413);
    expect(huge.body).toEqual({ message: 'The request body must not be larger than 1 MB.' });
  });
});

describe('registration when disabled', () => {
  it('answers 403 {"message":"Registration is disabled."} and creates nothing', async () => {
    const platform = await startTestPlatform({ env: { ALLOW_REGISTRATION: 'false' } });
    try {
      const address = email();
      const response = await platform.request('POST', '/auth/register', { body: { name: 'No', email: address, password: 'password1' } });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ message: 'Registration is disabled.' });
      expect(await platform.database.knex('users').where({ email: address }).first()).toBeUndefined();
    } finally {
      await platform.close();
    }
  });
});

describe('POST /api/auth/login and logout', () => {
  let platform: TestPlatform;
  // Time stands still in this block unless a test moves it.
  const clock = testClock();
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { LOGIN_MAX_ATTEMPTS: '3', LOGIN_LOCKOUT: '60s', SESSION_TTL: '2s', TRUST_PROXY: 'true' }, clock: clock.now });
  });
  afterAll(() => platform.close());

  it('logs in with the right password, case-insensitively by email, naming the token', async () => {
    const user = await createTestUser(platform.database.knex, { name: 'Login Person' });
    const response = await platform.request('POST', '/auth/login', {
      body: { email: user.email.toUpperCase(), password: user.password, token_name: 'my-laptop' },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Login successful.',
      user: { id: user.id, name: 'Login Person', email: user.email },
      token: expect.stringMatching(/^\d+\|[A-Za-z0-9]{40,}$/),
      token_name: 'my-laptop',
    });
    const defaultName = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect(defaultName.body.token_name).toBe('api-token');
  });

  it('answers 401 "Invalid credentials." for a wrong password and for an unknown email alike', async () => {
    const user = await createTestUser(platform.database.knex);
    const wrong = await platform.request('POST', '/auth/login', { body: { email: user.email, password: 'wrong password' } });
    const unknown = await platform.request('POST', '/auth/login', { body: { email: email(), password: 'wrong password' } });
    for (const response of [wrong, unknown]) {
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: 'Invalid credentials.' });
    }
  });

  it('spends comparable time on an unknown email as on a wrong password', async () => {
    const user = await createTestUser(platform.database.knex);
    const time = async (address: string) => {
      const started = performance.now();
      await platform.request('POST', '/auth/login', { body: { email: address, password: 'not the password' }, headers: { 'x-forwarded-for': `10.9.${Math.floor(Math.random() * 250)}.1` } });
      return performance.now() - started;
    };
    const known: number[] = [];
    const unknown: number[] = [];
    // Five of each, alternating, so that a burst of load on a shared machine moves one sample, not the median.
    for (let i = 0; i < 5; i++) {
      known.push(await time(user.email));
      unknown.push(await time(email()));
    }
    const median = (values: number[]) => values.sort((a, b) => a - b)[2] as number;
    // Both run one argon2id verification; without the decoy the unknown email would answer in a few ms.
    expect(median(unknown)).toBeGreaterThan(median(known) * 0.4);
  });

  it('locks an email and address out with 429 after too many failures, even for the right password', async () => {
    const user = await createTestUser(platform.database.knex);
    const headers = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 3; i++) {
      const failed = await platform.request('POST', '/auth/login', { body: { email: user.email, password: 'nope-nope' }, headers });
      expect(failed.status).toBe(401);
    }
    const locked = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password }, headers });
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
    expect(locked.body.retry_after).toBeGreaterThan(0);
    expect(locked.body.retry_after).toBeLessThanOrEqual(60);
    expect(locked.headers.get('retry-after')).toBe(String(locked.body.retry_after));
    const otherAddress = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password }, headers: { 'x-forwarded-for': '203.0.113.8' } });
    expect(otherAddress.status).toBe(200);
  });

  it('lets the email and address in again once the lockout is over', async () => {
    const user = await createTestUser(platform.database.knex);
    const headers = { 'x-forwarded-for': '203.0.113.9' };
    for (let i = 0; i < 3; i++) await platform.request('POST', '/auth/login', { body: { email: user.email, password: 'nope-nope' }, headers });
    const locked = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password }, headers });
    expect(locked.body).toEqual({ message: 'Too Many Attempts.', retry_after: 60 });
    clock.advance(59_999);
    const almost = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password }, headers });
    expect(almost.status).toBe(429);
    expect(almost.body.retry_after).toBe(1);
    clock.advance(1);
    expect((await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password }, headers })).status).toBe(200);
  });

  it('counts failures within one lockout period: older ones are forgotten', async () => {
    const user = await createTestUser(platform.database.knex);
    const headers = { 'x-forwarded-for': '203.0.113.10' };
    const fail = () => platform.request('POST', '/auth/login', { body: { email: user.email, password: 'nope-nope' }, headers });
    expect((await fail()).status).toBe(401);
    expect((await fail()).status).toBe(401);
    clock.advance(60_001);
    expect((await fail()).status).toBe(401);
    expect((await fail()).status).toBe(401);
    expect((await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password }, headers })).status).toBe(200);
  });

  it('revokes the session token on logout', async () => {
    const user = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect((await platform.request('GET', '/user/me', { token: body.token })).status).toBe(200);
    const logout = await platform.request('POST', '/auth/logout', { token: body.token });
    expect(logout.status).toBe(200);
    expect(logout.body).toEqual({ message: 'Logged out successfully.' });
    const after = await platform.request('GET', '/user/me', { token: body.token });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: 'Unauthenticated.' });
    expect((await platform.request('GET', '/user/me', { token: user.token })).status).toBe(200);
  });

  it('expires session tokens after SESSION_TTL but never API keys', async () => {
    const user = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password } });
    expect((await platform.request('GET', '/user/me', { token: body.token })).status).toBe(200);
    clock.advance(1999);
    expect((await platform.request('GET', '/user/me', { token: body.token })).status).toBe(200);
    clock.advance(1);
    expect((await platform.request('GET', '/user/me', { token: body.token })).status).toBe(401);
    expect((await platform.request('GET', '/user/me', { token: user.token })).status).toBe(200);
  });
});

describe('the per-account login budget, from every address together', () => {
  let platform: TestPlatform;
  const clock = testClock();
  beforeAll(async () => {
    platform = await startTestPlatform({
      env: {
        LOGIN_MAX_ATTEMPTS: '3',
        LOGIN_LOCKOUT: '60s',
        LOGIN_ACCOUNT_MAX_ATTEMPTS: '6',
        LOGIN_ACCOUNT_WINDOW: '15m',
        LOGIN_ACCOUNT_LOCKOUT: '30s',
        TRUST_PROXY: 'true',
      },
      clock: clock.now,
    });
  });
  afterAll(() => platform.close());

  let address = 0;
  /** A login from an address never used before, as an attacker with many addresses sends them. */
  const loginFromNewAddress = (user: { email: string }, password: string) =>
    platform.request('POST', '/auth/login', { body: { email: user.email, password }, headers: { 'x-forwarded-for': `198.51.100.${++address}` } });

  it('locks the account briefly once guesses from many addresses use up its budget, then lets its owner in', async () => {
    const user = await createTestUser(platform.database.knex);
    for (let i = 0; i < 6; i++) expect((await loginFromNewAddress(user, `guess-${i}`)).status).toBe(401);
    const locked = await loginFromNewAddress(user, user.password);
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ message: 'Too Many Attempts.', retry_after: 30 });
    expect(locked.headers.get('retry-after')).toBe('30');
    clock.advance(30_000);
    expect((await loginFromNewAddress(user, user.password)).status).toBe(200);
    // The success cleared the account's count: the budget is whole again.
    for (let i = 0; i < 5; i++) expect((await loginFromNewAddress(user, `guess-${i}`)).status).toBe(401);
  });

  it('gives guessing past the budget one try per lockout until the window is over', async () => {
    const user = await createTestUser(platform.database.knex);
    for (let i = 0; i < 6; i++) await loginFromNewAddress(user, `guess-${i}`);
    clock.advance(30_000);
    expect((await loginFromNewAddress(user, 'one more guess')).status).toBe(401);
    const again = await loginFromNewAddress(user, 'and another');
    expect(again.status).toBe(429);
    expect(again.body.retry_after).toBe(30);
    // Fifteen minutes after the first failure the count starts over.
    clock.advance(15 * 60_000);
    for (let i = 0; i < 5; i++) expect((await loginFromNewAddress(user, `later-${i}`)).status).toBe(401);
    expect((await loginFromNewAddress(user, user.password)).status).toBe(200);
  });

  it('leaves other accounts alone', async () => {
    const target = await createTestUser(platform.database.knex);
    const bystander = await createTestUser(platform.database.knex);
    for (let i = 0; i < 6; i++) await loginFromNewAddress(target, `guess-${i}`);
    expect((await loginFromNewAddress(target, target.password)).status).toBe(429);
    expect((await loginFromNewAddress(bystander, bystander.password)).status).toBe(200);
  });
});
