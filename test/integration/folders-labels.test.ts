import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

const COLORS = ['gray', 'slate', 'red', 'orange', 'amber', 'green', 'teal', 'blue', 'purple', 'pink'];

async function user(): Promise<TestUser> {
  return createTestUser(platform.database.knex);
}

// Folders and labels are the same kind of record with their own names; every rule is checked on both, at every
// path spelling the docs (singular) and integrations (plural) use.
describe.each([
  { noun: 'folder', Noun: 'Folder' },
  { noun: 'label', Noun: 'Label' },
])('$noun routes', ({ noun, Noun }) => {
  const singular = `/user/${noun}`;
  const plural = `/user/${noun}s`;
  const spellings = [singular, plural];

  async function create(owner: TestUser, body: Record<string, unknown>, path = singular) {
    return platform.request('POST', path, { token: owner.token, body });
  }

  async function createOk(owner: TestUser, name: string, color?: string) {
    const response = await create(owner, color === undefined ? { name } : { name, color });
    expect(response.status).toBe(201);
    return response.body.data as { id: number; name: string; color: string | null; assistants_count: number };
  }

  describe(`POST ${singular} and ${plural}`, () => {
    it.each(spellings)('creates at %s: 201 with the record and an assistant count of 0', async (path) => {
      const owner = await user();
      const response = await create(owner, { name: 'Acme Corp', color: 'blue' }, path);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        message: `${Noun} created successfully`,
        data: { id: expect.any(Number), name: 'Acme Corp', color: 'blue', assistants_count: 0 },
      });
    });

    it('leaves the colour null when none is sent, and takes each documented colour', async () => {
      const owner = await user();
      expect(await createOk(owner, 'Plain')).toMatchObject({ color: null });
      for (const color of COLORS) expect(await createOk(owner, `In ${color}`, color)).toMatchObject({ color });
    });

    it.each(spellings)('answers 422 in the Laravel shape at %s for a missing name, a long name and an unknown colour', async (path) => {
      const owner = await user();
      const missing = await create(owner, { color: 'red' }, path);
      expect(missing.status).toBe(422);
      expect(missing.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
      const wrong = await create(owner, { name: 'n'.repeat(256), color: 'yellow' }, path);
      expect(wrong.status).toBe(422);
      expect(wrong.body).toEqual({
        message: 'The name field must not be greater than 255 characters. (and 1 more error)',
        errors: { name: ['The name field must not be greater than 255 characters.'], color: ['The selected color is invalid.'] },
      });
      expect((await create(owner, { name: 'n'.repeat(255) }, path)).status).toBe(201);
    });

    it.each(spellings)('refuses at %s a name the caller already has, in any case, with the documented 422; another user may take it', async (path) => {
      const owner = await user();
      await createOk(owner, 'Acme Corp');
      for (const name of ['Acme Corp', 'ACME corp']) {
        const again = await create(owner, { name }, path);
        expect(again.status).toBe(422);
        expect(again.body).toEqual({ message: 'The name has already been taken.', errors: { name: ['The name has already been taken.'] } });
      }
      expect((await create(await user(), { name: 'Acme Corp' }, path)).status).toBe(201);
    });

    // Laravel trims input strings and takes a blank one as missing (issue 19's audit).
    it.each(spellings)('trims the name at %s: a blank one is missing, and spaces around it do not make a new name', async (path) => {
      const owner = await user();
      const blank = await create(owner, { name: ' \t ' }, path);
      expect(blank.status).toBe(422);
      expect(blank.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });
      const padded = await create(owner, { name: '  Acme Corp  ' }, path);
      expect(padded.status).toBe(201);
      expect(padded.body.data.name).toBe('Acme Corp');
      const again = await create(owner, { name: 'acme corp ' }, path);
      expect(again.status).toBe(422);
      expect(again.body).toEqual({ message: 'The name has already been taken.', errors: { name: ['The name has already been taken.'] } });
    });

    it('answers 401 without a token', async () => {
      const response = await platform.request('POST', singular, { body: { name: 'x' } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ message: 'Unauthenticated.' });
    });
  });

  describe(`GET ${plural}`, () => {
    it("pages the caller's own records, 15 by default, in Laravel's envelope", async () => {
      const owner = await user();
      const other = await user();
      await createOk(other, 'Not yours');
      const made = [];
      for (let index = 1; index <= 16; index++) made.push(await createOk(owner, `Group ${index}`));
      const first = await platform.request('GET', plural, { token: owner.token });
      expect(first.status).toBe(200);
      const base = `${platform.config.publicUrl}/api${plural}`;
      expect(first.body).toMatchObject({
        current_page: 1, per_page: 15, total: 16, last_page: 2, from: 1, to: 15,
        path: base, first_page_url: `${base}?page=1`, next_page_url: `${base}?page=2`, prev_page_url: null,
      });
      expect(first.body.data).toEqual(made.slice(0, 15));
      const second = await platform.request('GET', `${plural}?page=2`, { token: owner.token });
      expect(second.body.data).toEqual(made.slice(15));
      const small = await platform.request('GET', `${plural}?per_page=4&page=3`, { token: owner.token });
      expect(small.body).toMatchObject({ current_page: 3, per_page: 4, last_page: 4, next_page_url: `${base}?per_page=4&page=4` });
      expect(small.body.data.map((item: { name: string }) => item.name)).toEqual(['Group 9', 'Group 10', 'Group 11', 'Group 12']);
    });

    it('refuses a per_page outside 1 to 100', async () => {
      const owner = await user();
      for (const perPage of ['0', '101', 'many']) {
        const response = await platform.request('GET', `${plural}?per_page=${perPage}`, { token: owner.token });
        expect(response.status, perPage).toBe(422);
        expect(Object.keys(response.body.errors)).toEqual(['per_page']);
      }
    });
  });

  describe.each(spellings)(`the item at %s/{id}`, (base) => {
    it('reads, updates only the fields sent (null clears the colour) and deletes', async () => {
      const owner = await user();
      const made = await createOk(owner, 'Acme Corp', 'blue');
      const read = await platform.request('GET', `${base}/${made.id}`, { token: owner.token });
      expect(read.status).toBe(200);
      expect(read.body).toEqual(made);

      const recoloured = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { color: 'pink' } });
      expect(recoloured.status).toBe(200);
      expect(recoloured.body).toEqual({ message: `${Noun} updated successfully`, data: { ...made, color: 'pink' } });
      const renamed = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { name: 'Acme Inc.', color: null } });
      expect(renamed.body.data).toEqual({ ...made, name: 'Acme Inc.', color: null });

      const deleted = await platform.request('DELETE', `${base}/${made.id}`, { token: owner.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ message: `${Noun} deleted successfully` });
      expect((await platform.request('GET', `${base}/${made.id}`, { token: owner.token })).status).toBe(404);
    });

    it("answers another user's record and a missing one as not found, with the documented text, and changes nothing", async () => {
      const owner = await user();
      const stranger = await user();
      const made = await createOk(owner, 'Private', 'red');
      const notFound = { message: `${Noun} not found` };
      for (const id of [made.id, made.id + 1_000_000]) {
        for (const [method, body] of [['GET', undefined], ['PUT', { name: 'Taken over' }], ['DELETE', undefined]] as const) {
          const response = await platform.request(method, `${base}/${id}`, { token: stranger.token, body });
          expect(response.status, `${method} ${id}`).toBe(404);
          expect(response.body).toEqual(notFound);
        }
      }
      expect((await platform.request('GET', `${base}/${made.id}`, { token: owner.token })).body).toEqual(made);
    });

    it("refuses to rename to another of the caller's names, in any case, but keeps its own name (a new case of it too)", async () => {
      const owner = await user();
      await createOk(owner, 'Taken');
      const made = await createOk(owner, 'Mine');
      const clash = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { name: 'TAKEN' } });
      expect(clash.status).toBe(422);
      expect(clash.body).toEqual({ message: 'The name has already been taken.', errors: { name: ['The name has already been taken.'] } });
      const same = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { name: 'MINE' } });
      expect(same.status).toBe(200);
      expect(same.body.data.name).toBe('MINE');
    });

    it('validates the update body in the Laravel shape', async () => {
      const owner = await user();
      const made = await createOk(owner, 'Acme');
      const response = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { name: '', color: 'beige' } });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ name: ['The name field is required.'], color: ['The selected color is invalid.'] });
      const blank = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { name: '   ' } });
      expect(blank.status).toBe(422);
      expect(blank.body.errors).toEqual({ name: ['The name field is required.'] });
      const padded = await platform.request('PUT', `${base}/${made.id}`, { token: owner.token, body: { name: ' Acme Inc. ' } });
      expect(padded.body.data.name).toBe('Acme Inc.');
    });
  });
});

describe('the OpenAPI document', () => {
  it('lists every folder and label route at both spellings', async () => {
    const document = (await platform.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    for (const noun of ['folder', 'label']) {
      expect(Object.keys(document.paths[`/user/${noun}s`] ?? {}).sort()).toEqual(['get', 'post']);
      expect(Object.keys(document.paths[`/user/${noun}`] ?? {})).toEqual(['post']);
      for (const item of [`/user/${noun}/{id}`, `/user/${noun}s/{id}`]) expect(Object.keys(document.paths[item] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    }
    const assistants = document.paths['/user/assistants/get']?.get as { parameters: { name: string }[] };
    expect(assistants.parameters.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(['folder_id', 'label_id']));
  });
});
