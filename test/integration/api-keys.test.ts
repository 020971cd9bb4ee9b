import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/tokens.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

describe('API keys', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it('creates a key, shows its token once, and the token authenticates', async () => {
    const user = await createTestUser(platform.database.knex);
    const created = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: 'CI server' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: 'API key created successfully.',
      api_key: {
        name: 'CI server',
        token: expect.stringMatching(/^\d+\|[A-Za-z0-9]{40,}$/),
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
    });
    const me = await platform.request('GET', '/user/me', { token: created.body.api_key.token });
    expect(me.status).toBe(200);
    expect(me.body.email).toBe(user.email);

    const list = await platform.request('GET', '/user/api-keys', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(created.body.api_key.token.split('|')[1]);
    const listed = list.body.api_keys.find((key: { name: string }) => key.name === 'CI server');
    expect(listed).toEqual({
      id: Number(created.body.api_key.token.split('|')[0]),
      name: 'CI server',
      last_used_at: expect.stringMatching(/Z$/),
      created_at: created.body.api_key.created_at,
    });
  });

  it('stores only the SHA-256 of the secret', async () => {
    const user = await createTestUser(platform.database.knex);
    const created = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: 'hashed' } });
    const [id, secret] = created.body.api_key.token.split('|');
    const row = await platform.database.knex('access_tokens').where({ id: Number(id) }).first();
    expect(row.tokenHash).toBe(sha256Hex(secret));
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it('lists an empty set as {"api_keys":[]} and never lists session tokens', async () => {
    const user = await createTestUser(platform.database.knex);
    await platform.request('DELETE', `/user/api-keys/${user.token.split('|')[0]}`, { token: user.token });
    const { body } = await platform.request('POST', '/auth/login', { body: { email: user.email, password: user.password } });
    const list = await platform.request('GET', '/user/api-keys', { token: body.token });
    expect(list.body).toEqual({ api_keys: [] });
  });

  it('records last use at most once a minute', async () => {
    const user = await createTestUser(platform.database.knex);
    const id = Number(user.token.split('|')[0]);
    await platform.request('GET', '/user/me', { token: user.token });
    const first = (await platform.database.knex('access_tokens').where({ id }).first()).lastUsedAt as Date;
    expect(first).toBeInstanceOf(Date);
    await platform.request('GET', '/user/me', { token: user.token });
    const second = (await platform.database.knex('access_tokens').where({ id }).first()).lastUsedAt as Date;
    expect(second.getTime()).toBe(first.getTime());
  });

  it('deletes a key, which stops working at once', async () => {
    const user = await createTestUser(platform.database.knex);
    const created = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: 'short-lived' } });
    const key = created.body.api_key.token as string;
    const deleted = await platform.request('DELETE', `/user/api-keys/${key.split('|')[0]}`, { token: user.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'API key deleted successfully.' });
    const after = await platform.request('GET', '/user/me', { token: key });
    expect(after.status).toBe(401);
    expect(after.body).toEqual({ message: 'Unauthenticated.' });
    const again = await platform.request('DELETE', `/user/api-keys/${key.split('|')[0]}`, { token: user.token });
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ message: 'API key not found.' });
  });

  it("answers 404 to another user's key, exactly as if it did not exist, and leaves it working", async () => {
    const owner = await createTestUser(platform.database.knex);
    const intruder = await createTestUser(platform.database.knex);
    const ownerKeyId = owner.token.split('|')[0];
    const response = await platform.request('DELETE', `/user/api-keys/${ownerKeyId}`, { token: intruder.token });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'API key not found.' });
    expect((await platform.request('GET', '/user/me', { token: owner.token })).status).toBe(200);
    const intruderList = await platform.request('GET', '/user/api-keys', { token: intruder.token });
    expect(intruderList.body.api_keys.map((key: { id: number }) => key.id)).not.toContain(Number(ownerKeyId));
  });

  it('validates the name', async () => {
    const user = await createTestUser(platform.database.knex);
    const missing = await platform.request('POST', '/user/api-keys', { token: user.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
    const long = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: 'k'.repeat(256) } });
    expect(long.body.errors).toEqual({ name: ['The name field must not be greater than 255 characters.'] });
    const wrongType = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: 42 } });
    expect(wrongType.body.errors).toEqual({ name: ['The name field must be a string.'] });
    const justRight = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: 'k'.repeat(255) } });
    expect(justRight.status).toBe(201);
    const blank = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: ' \t ' } });
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
    const padded = await platform.request('POST', '/user/api-keys', { token: user.token, body: { name: '  Zapier  ' } });
    expect(padded.body.api_key.name).toBe('Zapier');
  });

  it('answers 422 for an id that is not a number', async () => {
    const user = await createTestUser(platform.database.knex);
    const response = await platform.request('DELETE', '/user/api-keys/abc', { token: user.token });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ id: ['The id field must be an integer.'] });
  });
});

describe('bearer authentication', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it.each([
    ['no Authorization header', undefined],
    ['a scheme other than Bearer', 'Basic dXNlcjpwYXNz'],
    ['a token that is not id|secret', 'Bearer not-a-token'],
    ['an unknown id', `Bearer 999999999|${'a'.repeat(48)}`],
  ])('answers 401 {"message":"Unauthenticated."} with %s', async (_case, header) => {
    const response = await platform.request('GET', '/user/me', { headers: header ? { authorization: header } : {} });
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthenticated.' });
  });

  it('answers 401 for a right id with a wrong secret', async () => {
    const user = await createTestUser(platform.database.knex);
    const [id] = user.token.split('|');
    const response = await platform.request('GET', '/user/me', { token: `${id}|${'Z'.repeat(48)}` });
    expect(response.status).toBe(401);
  });

  it('guards every /api/user route', async () => {
    const userRoutes = platform.api.routes.filter((route) => route.path.startsWith('/user/'));
    expect(userRoutes.length).toBeGreaterThan(0);
    for (const route of userRoutes) {
      expect(route.auth, `${route.method} ${route.path}`).toBe('bearer');
      const path = route.path.replace(/\{\w+\}/g, '1');
      const response = await platform.request(route.method, path, route.body ? { body: {} } : {});
      expect(response.status, `${route.method} ${route.path}`).toBe(401);
    }
  });
});
