import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const NOT_ADMIN = { message: 'Only white label admins can use this endpoint.' };
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('white-label platforms', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  /** An admin on the default plan (0.10 USD a minute), so each USD is 10 minutes. */
  async function createAdmin(balanceUsd = 10): Promise<TestUser> {
    const admin = await createTestUser(platform.database.knex, { balanceUsd, name: 'Agency' });
    await platform.database.knex('users').where({ id: admin.id }).update({ whiteLabelAdmin: true });
    return admin;
  }

  async function register(admin: TestUser, body: Record<string, unknown> = {}) {
    const email = `client-${Math.random().toString(36).slice(2)}@example.test`;
    const response = await platform.request('POST', '/white-label/register', {
      token: admin.token,
      body: { name: 'Client', email, password: 'client password', ...body },
    });
    return { response, email, id: response.body.user?.id as number };
  }

  async function balanceMicros(userId: number): Promise<number> {
    const row = await platform.database.knex('user_balances').where({ userId }).first();
    return Number(row?.micros ?? 0);
  }

  it('registers a user on the platform, with a session token that works and an empty balance', async () => {
    const admin = await createAdmin();
    const { response, email } = await register(admin);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      message: 'Registration successful.',
      user: { id: expect.any(Number), name: 'Client', email },
      token: expect.stringMatching(/^\d+\|/),
    });
    const me = await platform.request('GET', '/user/me', { token: response.body.token });
    expect(me.body).toEqual({ name: 'Client', email, total_balance: 0 });
    const row = await platform.database.knex('users').where({ id: response.body.user.id }).first();
    expect(row).toMatchObject({ whiteLabelOwnerId: admin.id, whiteLabelAdmin: false, timezone: 'Europe/Bucharest' });
  });

  it('refuses a registration with Laravel 422s: a taken email, a short password, a bad timezone', async () => {
    const admin = await createAdmin();
    const taken = await register(admin, { email: admin.email.toUpperCase() });
    expect(taken.response.status).toBe(422);
    expect(taken.response.body).toEqual({ message: 'The email has already been taken.', errors: { email: ['The email has already been taken.'] } });
    const short = await register(admin, { password: 'short' });
    expect(short.response.body.errors).toEqual({ password: ['The password field must be at least 8 characters.'] });
    const zone = await register(admin, { timezone: 'Mars/Olympus' });
    expect(zone.response.body.errors).toEqual({ timezone: ['The timezone field must be a valid timezone.'] });
    const missing = await platform.request('POST', '/white-label/register', { token: admin.token, body: {} });
    expect(Object.keys(missing.body.errors)).toEqual(['name', 'email', 'password']);
    // Laravel trims input: a blank name is missing, and the spaces around a name are not kept.
    const blank = await register(admin, { name: '   ' });
    expect(blank.response.status).toBe(422);
    expect(blank.response.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
    const padded = await register(admin, { name: '  Client  ' });
    expect(padded.response.body.user).toEqual({ id: expect.any(Number), name: 'Client', email: padded.email });
  });

  it('logs a platform user in, and answers 401 to a wrong password, an unknown email and a user of no platform', async () => {
    const admin = await createAdmin();
    const { email } = await register(admin);
    const ok = await platform.request('POST', '/white-label/login', { token: admin.token, body: { email, password: 'client password' } });
    expect(ok.status).toBe(200);
    expect(ok.body).toEqual({ message: 'Login successful.', user: { id: expect.any(Number), name: 'Client', email }, token: expect.stringMatching(/^\d+\|/), token_name: 'api-token' });
    expect((await platform.request('GET', '/user/me', { token: ok.body.token })).body.email).toBe(email);
    const named = await platform.request('POST', '/white-label/login', { token: admin.token, body: { email, password: 'client password', token_name: 'portal' } });
    expect(named.body.token_name).toBe('portal');

    const ordinary = await createTestUser(platform.database.knex);
    for (const body of [{ email, password: 'wrong password' }, { email: 'nobody@example.test', password: 'x' }, { email: ordinary.email, password: ordinary.password }]) {
      const refused = await platform.request('POST', '/white-label/login', { token: admin.token, body });
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ message: 'Invalid credentials.' });
    }
    const invalid = await platform.request('POST', '/white-label/login', { token: admin.token, body: { email: 'not-an-email' } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.errors).toEqual({ email: ['The email field must be a valid email address.'], password: ['The password field is required.'] });
  });

  it('counts white-label login failures towards the login lockout: 429 after too many, even for the right password', async () => {
    const admin = await createAdmin();
    const { email } = await register(admin);
    for (let i = 0; i < 5; i++) {
      const failed = await platform.request('POST', '/white-label/login', { token: admin.token, body: { email, password: 'wrong password' } });
      expect(failed.status).toBe(401);
    }
    const locked = await platform.request('POST', '/white-label/login', { token: admin.token, body: { email, password: 'client password' } });
    expect(locked.status).toBe(429);
    expect(locked.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
  });

  it('creates an API key for a platform user by id or email, and answers 404 and 422', async () => {
    const admin = await createAdmin();
    const { id, email } = await register(admin);
    const byId = await platform.request('POST', '/white-label/token', { token: admin.token, body: { user_id: id } });
    expect(byId.status).toBe(200);
    expect(byId.body).toEqual({ message: 'Token created successfully.', user: { id, name: 'Client', email }, token: expect.stringMatching(/^\d+\|/), token_name: 'api-token' });
    const byEmail = await platform.request('POST', '/white-label/token', { token: admin.token, body: { email: email.toUpperCase(), token_name: 'crm' } });
    expect(byEmail.body.token_name).toBe('crm');
    const keys = await platform.request('GET', '/user/api-keys', { token: byEmail.body.token });
    expect(keys.body.api_keys.map((key: { name: string }) => key.name)).toEqual(['api-token', 'crm']);

    const unknown = await platform.request('POST', '/white-label/token', { token: admin.token, body: { user_id: 999_999_999 } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'User not found.' });
    const neither = await platform.request('POST', '/white-label/token', { token: admin.token, body: {} });
    expect(neither.status).toBe(422);
    expect(neither.body).toEqual({
      message: 'The user id field is required when email is not present. (and 1 more error)',
      errors: { user_id: ['The user id field is required when email is not present.'], email: ['The email field is required when user id is not present.'] },
    });
  });

  it('lists the platform users with their balances in minutes and credits', async () => {
    const admin = await createAdmin();
    const first = await register(admin);
    const second = await register(admin);
    await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { user_id: second.id, transfer_type: 'minutes', operation: 'add', amount: 2.5 } });
    const list = await platform.request('GET', '/white-label/users', { token: admin.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [
        { id: first.id, name: 'Client', email: first.email, minutes_balance: 0, credits_balance: 0, created_at: expect.stringMatching(ISO) },
        { id: second.id, name: 'Client', email: second.email, minutes_balance: 2.5, credits_balance: 22.5, created_at: expect.stringMatching(ISO) },
      ],
    });
    const empty = await platform.request('GET', '/white-label/users', { token: (await createAdmin()).token });
    expect(empty.body).toEqual({ data: [] });
  });

  it('transfers minutes and credits both ways, one ledger entry a side, the same micro-dollars on each', async () => {
    const admin = await createAdmin(10);
    const { id, email } = await register(admin);
    const add = await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { user_id: id, transfer_type: 'minutes', operation: 'add', amount: 30 } });
    expect(add.status).toBe(200);
    expect(add.body).toEqual({
      message: 'Transfer completed successfully.',
      transfer: { type: 'minutes', operation: 'add', amount: 30 },
      user: { id, email, name: 'Client', minutes_balance: 30, credits_balance: 270 },
      your_balance: { minutes: 70 },
    });
    expect(await balanceMicros(id)).toBe(3_000_000);
    expect(await balanceMicros(admin.id)).toBe(7_000_000);

    const credits = await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { email, transfer_type: 'credits', operation: 'remove', amount: 90 } });
    expect(credits.body).toMatchObject({ user: { minutes_balance: 20, credits_balance: 180 }, your_balance: { minutes: 80 } });
    const entries = await platform.database.knex('balance_transactions').whereIn('user_id', [admin.id, id]).where({ kind: 'white_label_transfer' }).orderBy('id');
    expect(entries.map((entry) => [entry.userId, Number(entry.amountMicros)])).toEqual([
      [admin.id, -3_000_000], [id, 3_000_000], [id, -1_000_000], [admin.id, 1_000_000],
    ]);
  });

  it('never takes a balance below zero: a transfer it does not cover writes nothing, concurrent ones included', async () => {
    const admin = await createAdmin(1);
    const { id } = await register(admin);
    const tooMuch = await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { user_id: id, transfer_type: 'minutes', operation: 'add', amount: 10.01 } });
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body).toEqual({ message: 'Your balance does not cover 10.01 minutes.', errors: { amount: ['Your balance does not cover 10.01 minutes.'] } });
    const fromUser = await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { user_id: id, transfer_type: 'credits', operation: 'remove', amount: 1 } });
    expect(fromUser.status).toBe(422);
    expect(fromUser.body.message).toBe("The user's balance does not cover 1 credits.");
    expect(await platform.database.knex('balance_transactions').where({ kind: 'white_label_transfer' }).whereIn('user_id', [admin.id, id])).toEqual([]);

    const racing = await Promise.all([6, 6].map((amount) => platform.request('POST', '/white-label/transfer', {
      token: admin.token, body: { user_id: id, transfer_type: 'minutes', operation: 'add', amount },
    })));
    expect(racing.map((response) => response.status).sort()).toEqual([200, 422]);
    expect(await balanceMicros(admin.id)).toBe(400_000);
    expect(await balanceMicros(id)).toBe(600_000);
  });

  it('validates the transfer body', async () => {
    const admin = await createAdmin();
    const { id } = await register(admin);
    const bad = await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { user_id: id, transfer_type: 'hours', operation: 'gift', amount: 0 } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({
      transfer_type: ['The selected transfer type is invalid.'],
      operation: ['The selected operation is invalid.'],
      amount: ['The amount field must be greater than 0.'],
    });
    const neither = await platform.request('POST', '/white-label/transfer', { token: admin.token, body: { transfer_type: 'minutes', operation: 'add', amount: 1 } });
    expect(Object.keys(neither.body.errors)).toEqual(['user_id', 'email']);
  });

  it('never reaches the users of another platform', async () => {
    const owner = await createAdmin();
    const other = await createAdmin();
    const { id, email } = await register(owner);
    const login = await platform.request('POST', '/white-label/login', { token: other.token, body: { email, password: 'client password' } });
    expect(login.status).toBe(401);
    for (const body of [{ user_id: id }, { email }]) {
      const token = await platform.request('POST', '/white-label/token', { token: other.token, body });
      expect(token.status).toBe(404);
      expect(token.body).toEqual({ message: 'User not found.' });
      const transfer = await platform.request('POST', '/white-label/transfer', { token: other.token, body: { ...body, transfer_type: 'minutes', operation: 'remove', amount: 1 } });
      expect(transfer.status).toBe(404);
    }
    // Both selectors must name the same user of the platform: a foreign email beside an own id is not found either.
    const own = await register(other);
    const mixed = await platform.request('POST', '/white-label/token', { token: other.token, body: { user_id: own.id, email } });
    expect(mixed.status).toBe(404);
    const self = await platform.request('POST', '/white-label/transfer', { token: other.token, body: { user_id: other.id, transfer_type: 'minutes', operation: 'add', amount: 1 } });
    expect(self.status).toBe(404);
    const list = await platform.request('GET', '/white-label/users', { token: other.token });
    expect(list.body.data.map((user: { id: number }) => user.id)).toEqual([own.id]);
  });

  it('lists the five routes in the OpenAPI document with their 403', async () => {
    const { body } = await platform.request('GET', '/openapi.json');
    const routes: [string, string][] = [['/white-label/login', 'post'], ['/white-label/token', 'post'], ['/white-label/register', 'post'], ['/white-label/users', 'get'], ['/white-label/transfer', 'post']];
    for (const [path, method] of routes) {
      expect(body.paths[path]?.[method]?.responses, path).toHaveProperty('403');
    }
  });

  it('answers 403 to a caller that is not a white-label admin, and 401 without a key', async () => {
    const ordinary = await createTestUser(platform.database.knex);
    const requests: [string, string, Record<string, unknown> | undefined][] = [
      ['POST', '/white-label/login', { email: ordinary.email, password: ordinary.password }],
      ['POST', '/white-label/token', { email: ordinary.email }],
      ['POST', '/white-label/register', { name: 'X', email: 'x-new@example.test', password: 'long enough' }],
      ['GET', '/white-label/users', undefined],
      ['POST', '/white-label/transfer', { email: ordinary.email, transfer_type: 'minutes', operation: 'add', amount: 1 }],
    ];
    for (const [method, path, body] of requests) {
      const response = await platform.request(method, path, { token: ordinary.token, ...(body ? { body } : {}) });
      expect(response.status, path).toBe(403);
      expect(response.body, path).toEqual(NOT_ADMIN);
      const anonymous = await platform.request(method, path, body ? { body } : {});
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body).toEqual({ message: 'Unauthenticated.' });
    }
    expect(await platform.database.knex('users').where({ email: 'x-new@example.test' })).toEqual([]);
  });

  // Anchor §1.1–1.2: the routes need an admin's key and a non-admin "gets 403"; no rule puts validation first, and
  // Laravel authorizes a request before it validates it.
  it('answers 403 to a non-admin before looking at its body; an admin sending the same body gets the 422', async () => {
    const ordinary = await createTestUser(platform.database.knex);
    const admin = await createAdmin();
    const invalid: [string, Record<string, unknown>][] = [
      ['/white-label/login', { password: 7 }],
      ['/white-label/token', { token_name: 'x'.repeat(300) }],
      ['/white-label/register', { email: 'not an email', password: 'short' }],
      ['/white-label/transfer', { email: ordinary.email, transfer_type: 'hours', amount: -1 }],
    ];
    for (const [path, body] of invalid) {
      const refused = await platform.request('POST', path, { token: ordinary.token, body });
      expect(refused.status, path).toBe(403);
      expect(refused.body, path).toEqual(NOT_ADMIN);
      const asAdmin = await platform.request('POST', path, { token: admin.token, body });
      expect(asAdmin.status, path).toBe(422);
      expect(asAdmin.body, path).toMatchObject({ message: expect.any(String), errors: expect.any(Object) });
    }
    // Not even a body that is not JSON is read first.
    const garbled = await platform.request('POST', '/white-label/register', { token: ordinary.token, body: '{"name":', headers: { 'content-type': 'application/json' } });
    expect(garbled.status).toBe(403);
  });
});
