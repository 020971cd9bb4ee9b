import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSecretBox, decodeAppKey, generateAppKey } from '../../src/lib/secrets.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const appKey = generateAppKey();
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform({ env: { APP_KEY: appKey } });
});
afterAll(() => platform.close());

const validTool = (overrides: Record<string, unknown> = {}) => ({
  name: 'check_availability',
  description: 'Checks free slots for a date the caller names.',
  endpoint: 'https://api.example.com/availability',
  method: 'POST',
  ...overrides,
});

async function user(): Promise<TestUser> {
  return createTestUser(platform.database.knex);
}

async function createTool(owner: TestUser, overrides: Record<string, unknown> = {}) {
  return platform.request('POST', '/user/tools', { token: owner.token, body: validTool(overrides) });
}

/** The 422 errors of creating a tool with these fields changed. */
async function errorsFor(overrides: Record<string, unknown>) {
  const response = await createTool(await user(), overrides);
  expect(response.status).toBe(422);
  return response.body.errors as Record<string, string[]>;
}

describe('POST /api/user/tools', () => {
  it('creates the tool and answers 201 with it, timeout defaulting to 10 and parameters required by default', async () => {
    const owner = await user();
    const response = await createTool(owner, {
      headers: [{ name: 'Authorization', value: 'Bearer s3cret' }],
      schema: [
        { name: 'date', type: 'string', description: 'The day asked for' },
        { name: 'party_size', type: 'number', description: 'How many people', required: false },
      ],
      unknown_field: 'dropped',
    });
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      message: 'Tool created successfully',
      data: {
        id: expect.any(Number),
        name: 'check_availability',
        description: 'Checks free slots for a date the caller names.',
        endpoint: 'https://api.example.com/availability',
        method: 'POST',
        timeout: 10,
        headers: [{ name: 'Authorization', value: 'Bearer s3cret' }],
        schema: [
          { name: 'date', type: 'string', description: 'The day asked for', required: true },
          { name: 'party_size', type: 'number', description: 'How many people', required: false },
        ],
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
      },
    });
  });

  it('says which fields are required', async () => {
    const response = await platform.request('POST', '/user/tools', { token: (await user()).token, body: {} });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      message: 'The name field is required. (and 3 more errors)',
      errors: {
        name: ['The name field is required.'],
        description: ['The description field is required.'],
        endpoint: ['The endpoint field is required.'],
        method: ['The method field is required.'],
      },
    });
  });

  it('takes names of lowercase letters and underscores that start with a letter, and refuses others with the documented text', async () => {
    const text = 'Tool name must contain only lowercase letters and underscores, and start with a letter.';
    const owner = await user();
    expect((await createTool(owner, { name: 'a' })).status).toBe(201);
    expect((await createTool(owner, { name: 'book_a_table_' })).status).toBe(201);
    expect((await createTool(owner, { name: 'x'.repeat(64) })).status).toBe(201);
    for (const name of ['Book', '_book', '1book', 'book-table', 'book table', 'bóok']) {
      expect(await errorsFor({ name })).toEqual({ name: [text] });
    }
    expect(await errorsFor({ name: 'x'.repeat(65) })).toEqual({ name: ['The name field must not be greater than 64 characters.'] });
  });

  it('refuses a second tool of the same name for one user, but not for another user', async () => {
    const owner = await user();
    expect((await createTool(owner)).status).toBe(201);
    const again = await createTool(owner);
    expect(again.status).toBe(422);
    expect(again.body.errors).toEqual({ name: ['The name has already been taken.'] });
    expect((await createTool(await user())).status).toBe(201);
  });

  it('keeps the description within 255 characters', async () => {
    expect((await createTool(await user(), { description: 'd'.repeat(255) })).status).toBe(201);
    expect(await errorsFor({ description: 'd'.repeat(256) })).toEqual({ description: ['The description field must not be greater than 255 characters.'] });
  });

  it('takes http and https endpoints and refuses anything else', async () => {
    const owner = await user();
    expect((await createTool(owner, { name: 'plain', endpoint: 'http://example.com/hook?x={param}' })).status).toBe(201);
    expect((await createTool(owner, { name: 'secure', endpoint: 'https://example.com' })).status).toBe(201);
    for (const endpoint of ['ftp://example.com/file', 'example.com/path', 'not a url', 'https://', 'https:///path', 'http://exa mple.com', 'http://[::1']) {
      expect(await errorsFor({ endpoint })).toEqual({ endpoint: ['The endpoint field must be a valid URL.'] });
    }
  });

  it('takes the five methods, in capitals', async () => {
    const owner = await user();
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      expect((await createTool(owner, { name: `call_${method.toLowerCase()}`, method })).status).toBe(201);
    }
    expect(await errorsFor({ method: 'get' })).toEqual({ method: ['The selected method is invalid.'] });
    expect(await errorsFor({ method: 'HEAD' })).toEqual({ method: ['The selected method is invalid.'] });
  });

  it('keeps the timeout between 1 and 30 seconds', async () => {
    const owner = await user();
    expect((await createTool(owner, { name: 'fast', timeout: 1 })).body.data.timeout).toBe(1);
    expect((await createTool(owner, { name: 'slow', timeout: 30 })).body.data.timeout).toBe(30);
    for (const timeout of [0, 31]) {
      expect(await errorsFor({ timeout })).toEqual({ timeout: ['The timeout field must be between 1 and 30.'] });
    }
    expect(await errorsFor({ timeout: 2.5 })).toEqual({ timeout: ['The timeout field must be an integer.'] });
  });

  it('checks each header: a name that can be sent and a value without line breaks', async () => {
    expect(await errorsFor({ headers: [{ name: 'X-Key' }] })).toEqual({ 'headers.0.value': ['The headers.0.value field is required.'] });
    expect(await errorsFor({ headers: [{ name: 'Bad Name', value: 'v' }] })).toEqual({ 'headers.0.name': ['The headers.0.name field format is invalid.'] });
    expect(await errorsFor({ headers: [{ name: 'X-Key', value: 'a\r\nX-Injected: 1' }] })).toEqual({ 'headers.0.value': ['The headers.0.value field format is invalid.'] });
    expect(await errorsFor({ headers: 'X-Key: v' })).toEqual({ headers: ['The headers field must be an array.'] });
  });

  it('checks each schema parameter at the boundaries of its rules', async () => {
    const parameter = (overrides: Record<string, unknown>) => ({ name: 'date', type: 'string', description: 'The day', ...overrides });
    const owner = await user();
    const inside = await createTool(owner, {
      schema: [
        parameter({ name: 'ab', description: 'abc' }),
        parameter({ name: `A${'b'.repeat(31)}`, description: 'd'.repeat(255), type: 'boolean' }),
        parameter({ name: 'count_of', type: 'number' }),
      ],
    });
    expect(inside.status).toBe(201);
    expect(await errorsFor({ schema: [parameter({ name: 'a' })] })).toEqual({ 'schema.0.name': ['The schema.0.name field must be at least 2 characters.'] });
    expect(await errorsFor({ schema: [parameter({ name: `a${'b'.repeat(32)}` })] })).toEqual({ 'schema.0.name': ['The schema.0.name field must not be greater than 32 characters.'] });
    expect(await errorsFor({ schema: [parameter({ name: '_date' })] })).toEqual({
      'schema.0.name': ['The schema.0.name field must start with a letter and contain only letters and underscores.'],
    });
    expect(await errorsFor({ schema: [parameter({ name: 'date2' })] })).toEqual({
      'schema.0.name': ['The schema.0.name field must start with a letter and contain only letters and underscores.'],
    });
    expect(await errorsFor({ schema: [parameter({ type: 'float' })] })).toEqual({ 'schema.0.type': ['The selected schema.0.type is invalid.'] });
    expect(await errorsFor({ schema: [parameter({ description: 'ab' })] })).toEqual({ 'schema.0.description': ['The schema.0.description field must be at least 3 characters.'] });
    expect(await errorsFor({ schema: [parameter({ description: 'd'.repeat(256) })] })).toEqual({
      'schema.0.description': ['The schema.0.description field must not be greater than 255 characters.'],
    });
    expect(await errorsFor({ schema: [parameter({ required: 'yes' })] })).toEqual({ 'schema.0.required': ['The schema.0.required field must be true or false.'] });
    expect(await errorsFor({ schema: [parameter({}), parameter({})] })).toEqual({ 'schema.1.name': ['The schema.1.name field has a duplicate value.'] });
  });

  it('stops at the plan limit of five tools with the documented message', async () => {
    const owner = await user();
    for (let index = 0; index < 5; index++) expect((await createTool(owner, { name: `tool_${'abcde'[index]}` })).status).toBe(201);
    const sixth = await createTool(owner, { name: 'tool_f' });
    expect(sixth.status).toBe(422);
    expect(sixth.body).toEqual({ message: 'You have reached your plan limit of 5 mid call tools. Please upgrade your plan to create more tools.' });
    // Deleting one makes room again.
    const [first] = (await platform.request('GET', '/user/tools', { token: owner.token })).body;
    expect((await platform.request('DELETE', `/user/tools/${first.id}`, { token: owner.token })).status).toBe(200);
    expect((await createTool(owner, { name: 'tool_f' })).status).toBe(201);
  });

  it('reads the limit from the user\'s plan', async () => {
    const owner = await user();
    const planId = `test-${randomUUID()}`;
    await platform.database.knex('plans').insert({ id: planId, name: 'Tiny', midCallTools: 2 });
    await platform.database.knex('users').where({ id: owner.id }).update({ planId });
    expect((await createTool(owner, { name: 'one' })).status).toBe(201);
    expect((await createTool(owner, { name: 'two' })).status).toBe(201);
    const third = await createTool(owner, { name: 'three' });
    expect(third.body).toEqual({ message: 'You have reached your plan limit of 2 mid call tools. Please upgrade your plan to create more tools.' });
    await platform.database.knex('plans').where({ id: planId }).update({ midCallTools: null });
    expect((await createTool(owner, { name: 'three' })).status).toBe(201);
  });

  it('lets no more than the limit through when creates race', async () => {
    const owner = await user();
    const names = ['a_one', 'a_two', 'a_three', 'a_four', 'a_five', 'a_six', 'a_seven', 'a_eight'];
    const responses = await Promise.all(names.map((name) => createTool(owner, { name })));
    expect(responses.filter((response) => response.status === 201)).toHaveLength(5);
    expect(responses.filter((response) => response.status === 422)).toHaveLength(3);
    expect(await platform.database.knex('tools').where({ userId: owner.id }).count('* as count').first()).toEqual({ count: 5 });
  });

  it('stores header values encrypted with the app key, and shows them to the owner as sent', async () => {
    const owner = await user();
    const secret = `sk-live-${randomUUID()}`;
    const created = await createTool(owner, { headers: [{ name: 'X-Api-Key', value: secret }, { name: 'X-Empty', value: '' }] });
    const raw = await platform.database.knex.raw<{ rows: { headers: unknown }[] }>('select headers::text as headers from tools where id = ?', [created.body.data.id]);
    const column = String(raw.rows[0]?.headers);
    expect(column).not.toContain(secret);
    const stored = JSON.parse(column) as { name: string; value: string }[];
    expect(stored.map((header) => header.name)).toEqual(['X-Api-Key', 'X-Empty']);
    expect(stored[0]?.value).toMatch(/^v1:[A-Za-z0-9+/=]+$/);
    expect(createSecretBox(decodeAppKey(appKey) as Buffer).decrypt(stored[0]?.value ?? '', 'tool.header')).toBe(secret);
    const read = await platform.request('GET', `/user/tools/${created.body.data.id}`, { token: owner.token });
    expect(read.body.headers).toEqual([{ name: 'X-Api-Key', value: secret }, { name: 'X-Empty', value: '' }]);
  });
});

describe('GET /api/user/tools and /api/user/tools/{id}', () => {
  it('lists only the caller\'s tools as a bare array, oldest first', async () => {
    const owner = await user();
    const other = await user();
    await createTool(owner, { name: 'first' });
    await createTool(owner, { name: 'second' });
    await createTool(other, { name: 'foreign' });
    const list = await platform.request('GET', '/user/tools', { token: owner.token });
    expect(list.status).toBe(200);
    expect(Array.isArray(list.body)).toBe(true);
    expect((list.body as any[]).map((tool: { name: string }) => tool.name)).toEqual(['first', 'second']);
  });

  it('answers one tool unwrapped, as JSON whatever the Accept header says', async () => {
    const owner = await user();
    const created = await createTool(owner);
    const read = await platform.request('GET', `/user/tools/${created.body.data.id}`, { token: owner.token, headers: { accept: 'text/html' } });
    expect(read.status).toBe(200);
    expect(read.headers.get('content-type')).toMatch(/^application\/json/);
    expect(read.body).toEqual(created.body.data);
  });

  it('answers 404 "Tool not found" for a missing tool and for another user\'s tool', async () => {
    const owner = await user();
    const foreign = await createTool(await user());
    for (const id of [foreign.body.data.id, 999_999_999]) {
      const response = await platform.request('GET', `/user/tools/${id}`, { token: owner.token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: 'Tool not found' });
    }
  });

  it('needs a credential', async () => {
    const response = await platform.request('GET', '/user/tools');
    expect(response.status).toBe(401);
    expect(response.body).toEqual({ message: 'Unauthenticated.' });
  });
});

describe('PUT and PATCH /api/user/tools/{id}', () => {
  for (const method of ['PUT', 'PATCH']) {
    it(`${method} changes only the fields sent, and replaces headers and schema when sent`, async () => {
      const owner = await user();
      const created = await createTool(owner, {
        timeout: 12,
        headers: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }],
        schema: [{ name: 'date', type: 'string', description: 'The day' }],
      });
      const id = created.body.data.id;
      const renamed = await platform.request(method, `/user/tools/${id}`, { token: owner.token, body: { name: 'renamed_tool' } });
      expect(renamed.status).toBe(200);
      expect(renamed.body).toEqual({ message: 'Tool updated successfully', data: { ...created.body.data, name: 'renamed_tool', updated_at: expect.any(String) } });

      const replaced = await platform.request(method, `/user/tools/${id}`, { token: owner.token, body: { headers: [{ name: 'C', value: '3' }], schema: [] } });
      expect(replaced.body.data.headers).toEqual([{ name: 'C', value: '3' }]);
      expect(replaced.body.data.schema).toEqual([]);
      expect(replaced.body.data.timeout).toBe(12);
      expect((await platform.request('GET', `/user/tools/${id}`, { token: owner.token })).body).toEqual(replaced.body.data);
    });
  }

  it('applies the create rules to the fields sent', async () => {
    const owner = await user();
    const id = (await createTool(owner)).body.data.id;
    const response = await platform.request('PUT', `/user/tools/${id}`, { token: owner.token, body: { name: 'Bad', timeout: 31, method: 'FETCH' } });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({
      name: ['Tool name must contain only lowercase letters and underscores, and start with a letter.'],
      method: ['The selected method is invalid.'],
      timeout: ['The timeout field must be between 1 and 30.'],
    });
    await createTool(owner, { name: 'taken' });
    const clash = await platform.request('PATCH', `/user/tools/${id}`, { token: owner.token, body: { name: 'taken' } });
    expect(clash.body.errors).toEqual({ name: ['The name has already been taken.'] });
    // Keeping its own name is no clash.
    expect((await platform.request('PATCH', `/user/tools/${id}`, { token: owner.token, body: { name: 'check_availability' } })).status).toBe(200);
  });

  it('answers 404 for another user\'s tool and leaves it unchanged', async () => {
    const owner = await user();
    const foreign = await createTool(owner);
    const response = await platform.request('PUT', `/user/tools/${foreign.body.data.id}`, { token: (await user()).token, body: { name: 'stolen' } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Tool not found' });
    expect((await platform.request('GET', `/user/tools/${foreign.body.data.id}`, { token: owner.token })).body.name).toBe('check_availability');
  });
});

describe('DELETE /api/user/tools/{id}', () => {
  it('deletes the tool; afterwards it is not found', async () => {
    const owner = await user();
    const id = (await createTool(owner)).body.data.id;
    const response = await platform.request('DELETE', `/user/tools/${id}`, { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Tool deleted successfully' });
    expect((await platform.request('DELETE', `/user/tools/${id}`, { token: owner.token })).body).toEqual({ message: 'Tool not found' });
  });

  it('answers 404 for another user\'s tool and keeps it', async () => {
    const owner = await user();
    const id = (await createTool(owner)).body.data.id;
    expect((await platform.request('DELETE', `/user/tools/${id}`, { token: (await user()).token })).status).toBe(404);
    expect((await platform.request('GET', `/user/tools/${id}`, { token: owner.token })).status).toBe(200);
  });
});
