import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recomputeKnowledgebaseStatus } from '../../src/knowledge/status.ts';
import { uploadDocument, waitForDocument } from '../support/documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
let platform: TestPlatform;

beforeAll(async () => {
  platform = await startTestPlatform({ worker: true });
});

afterAll(async () => {
  await platform?.close();
});

describe('knowledge base endpoints', () => {
  it('create, list, get, update and delete with the documented shapes', async () => {
    const user = await createTestUser(platform.database.knex);
    const created = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Support', description: 'FAQ and manuals' } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      message: 'Knowledgebase created successfully.',
      data: { id: expect.any(Number), name: 'Support', description: 'FAQ and manuals', status: 'empty', status_label: 'Empty', created_at: iso, updated_at: iso },
    });
    const id = created.body.data.id as number;
    const item = { id, name: 'Support', description: 'FAQ and manuals', status: 'empty', status_label: 'Empty', documents_count: 0, assistants_count: 0, created_at: iso, updated_at: iso };
    expect((await platform.request('GET', '/user/knowledgebases', { token: user.token })).body).toEqual({ data: [item] });
    expect((await platform.request('GET', `/user/knowledgebases/${id}`, { token: user.token })).body).toEqual({ data: item });

    const updated = await platform.request('PUT', `/user/knowledgebases/${id}`, { token: user.token, body: { name: 'Support v2' } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      message: 'Knowledgebase updated successfully.',
      data: { id, name: 'Support v2', description: 'FAQ and manuals', status: 'empty', status_label: 'Empty', updated_at: iso },
    });
    const tooLong = await platform.request('PUT', `/user/knowledgebases/${id}`, { token: user.token, body: { name: 'x'.repeat(256) } });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toEqual({ message: 'The name field must not be greater than 255 characters.', errors: { name: ['The name field must not be greater than 255 characters.'] } });
    const missing = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: {} });
    expect(missing.body).toEqual({ message: 'The name field is required.', errors: { name: ['The name field is required.'] } });

    const deleted = await platform.request('DELETE', `/user/knowledgebases/${id}`, { token: user.token });
    expect(deleted.body).toEqual({ message: 'Knowledgebase deleted successfully.' });
    const gone = await platform.request('GET', `/user/knowledgebases/${id}`, { token: user.token });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: 'Knowledgebase not found.' });
  });

  it("answers 404 {error} for another user's knowledge base and its documents, and changes nothing", async () => {
    const owner = await createTestUser(platform.database.knex);
    const other = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/user/knowledgebases', { token: owner.token, body: { name: 'Private' } });
    const id = body.data.id as number;
    const notFound = { error: 'Knowledgebase not found.' };
    for (const [method, route, payload] of [
      ['GET', `/user/knowledgebases/${id}`, undefined],
      ['PUT', `/user/knowledgebases/${id}`, { name: 'Stolen' }],
      ['DELETE', `/user/knowledgebases/${id}`, undefined],
      ['GET', `/user/knowledgebases/${id}/documents`, undefined],
      ['POST', `/user/knowledgebases/${id}/documents`, { name: 'x', type: 'website', url: 'https://example.com' }],
      ['POST', `/user/knowledgebases/${id}/search`, { query: 'anything' }],
    ] as const) {
      const response = await platform.request(method, route, { token: other.token, body: payload });
      expect(response.status, `${method} ${route}`).toBe(404);
      expect(response.body).toEqual(notFound);
    }
    expect((await platform.request('GET', '/user/knowledgebases', { token: other.token })).body).toEqual({ data: [] });
    expect((await platform.request('GET', `/user/knowledgebases/${id}`, { token: owner.token })).body.data.name).toBe('Private');
    const unauthenticated = await platform.request('GET', '/user/knowledgebases');
    expect(unauthenticated.status).toBe(401);
  });

  it('enforces the plan limit on knowledge bases', async () => {
    const planId = `kb-limit-${randomUUID()}`;
    await platform.database.knex('plans').insert({ id: planId, name: 'Tiny', knowledgebases: 1 });
    const user = await createTestUser(platform.database.knex);
    await platform.database.knex('users').where({ id: user.id }).update({ planId });
    expect((await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'One' } })).status).toBe(201);
    const second = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Two' } });
    expect(second.status).toBe(422);
    expect(second.body).toEqual({ message: 'You have reached your plan limit of 1 knowledgebases. Please upgrade your plan to create more knowledgebases.' });
  });

  it('counts the assistants that use a knowledge base, and detaches them when it is deleted', async () => {
    const user = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Shared' } });
    const id = body.data.id as number;
    for (const name of ['A', 'B']) {
      await platform.database.knex('assistants').insert({ uuid: randomUUID(), userId: user.id, name, knowledgebaseId: id });
    }
    expect((await platform.request('GET', `/user/knowledgebases/${id}`, { token: user.token })).body.data.assistants_count).toBe(2);
    await platform.request('DELETE', `/user/knowledgebases/${id}`, { token: user.token });
    const assistants = await platform.database.knex('assistants').where({ userId: user.id }).select('knowledgebaseId');
    expect(assistants).toEqual([{ knowledgebaseId: null }, { knowledgebaseId: null }]);
  });
});

describe('knowledge base status', () => {
  it('follows its documents: empty, processing, active, and failed only when all failed', async () => {
    const user = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'States' } });
    const kb = body.data.id as number;
    const status = async (): Promise<{ status: string }> => {
      const response = await platform.request<{ data: { status: string } }>('GET', `/user/knowledgebases/${kb}`, { token: user.token });
      return response.body.data;
    };
    expect((await status()).status).toBe('empty');

    const bad = await uploadDocument(platform, user.token, kb, { name: 'Bad', type: 'txt' }, { name: 'bad.txt', data: Buffer.alloc(3000, 0) });
    expect((await status()).status).toBe('processing');
    await waitForDocument(platform, user.token, kb, bad.body.data.id);
    expect(await status()).toMatchObject({ status: 'failed', status_label: 'Failed', documents_count: 1 });

    const good = await uploadDocument(platform, user.token, kb, { name: 'Good', type: 'txt' }, { name: 'good.txt', data: Buffer.from('Opening hours are nine to five.') });
    expect((await status()).status).toBe('processing');
    await waitForDocument(platform, user.token, kb, good.body.data.id);
    expect(await status()).toMatchObject({ status: 'active', status_label: 'Active', documents_count: 2 });

    await platform.request('DELETE', `/user/knowledgebases/${kb}/documents/${good.body.data.id}`, { token: user.token });
    expect((await status()).status).toBe('failed');
    await platform.request('DELETE', `/user/knowledgebases/${kb}/documents/${bad.body.data.id}`, { token: user.token });
    expect(await status()).toMatchObject({ status: 'empty', documents_count: 0 });
  }, 90_000);

  it('takes documents uploaded at once into one knowledge base, every one of them', async () => {
    // Each upload inserts a document (which share-locks its knowledge base through the foreign key) and then
    // locks the knowledge base to recompute its status: with an exclusive lock there, two uploads deadlocked.
    const user = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'At once' } });
    const kb = body.data.id as number;
    const uploads = await Promise.all(Array.from({ length: 6 }, (_, index) =>
      uploadDocument(platform, user.token, kb, { name: `Note ${index}`, type: 'txt' }, { name: `note-${index}.txt`, data: Buffer.from(`Note number ${index}.`) })));
    expect(uploads.map((upload) => upload.status)).toEqual(Array(6).fill(201));
    await Promise.all(uploads.map((upload) => waitForDocument(platform, user.token, kb, upload.body.data.id)));
    const kbAfter = await platform.request<{ data: { status: string; documents_count: number } }>('GET', `/user/knowledgebases/${kb}`, { token: user.token });
    expect(kbAfter.body.data).toMatchObject({ status: 'active', documents_count: 6 });
  }, 90_000);

  it('is derived with processing first, then active, then failed', async () => {
    const user = await createTestUser(platform.database.knex);
    const { body } = await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'Derived' } });
    const kb = body.data.id as number;
    const knex = platform.database.knex;
    const insert = (status: string) => knex('documents').insert({ userId: user.id, knowledgebaseId: kb, name: status, type: 'txt', status });
    const derived = async () => {
      await recomputeKnowledgebaseStatus(knex, kb);
      return (await knex('knowledgebases').where({ id: kb }).first()).status as string;
    };
    await insert('failed');
    expect(await derived()).toBe('failed');
    await insert('active');
    expect(await derived()).toBe('active');
    await insert('processing');
    expect(await derived()).toBe('processing');
  });
});

describe('documents: get and update', () => {
  it('renames a document, leaves its content alone, and answers 404 {error} for a document of another knowledge base', async () => {
    const user = await createTestUser(platform.database.knex);
    const kbA = (await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'A' } })).body.data.id as number;
    const kbB = (await platform.request('POST', '/user/knowledgebases', { token: user.token, body: { name: 'B' } })).body.data.id as number;
    const doc = await uploadDocument(platform, user.token, kbA, { name: 'Notes', type: 'txt' }, { name: 'n.txt', data: Buffer.from('Parking is behind the building.') });
    const id = doc.body.data.id as number;
    await waitForDocument(platform, user.token, kbA, id);
    const updated = await platform.request('PUT', `/user/knowledgebases/${kbA}/documents/${id}`, {
      token: user.token, body: { name: 'Visitor notes', description: 'For guests', type: 'pdf' },
    });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      message: 'Document updated successfully.',
      data: {
        id, name: 'Visitor notes', description: 'For guests', type: 'txt', type_label: 'Text', status: 'active', status_label: 'Active',
        error: null, created_at: iso, updated_at: iso,
      },
    });
    const elsewhere = await platform.request('GET', `/user/knowledgebases/${kbB}/documents/${id}`, { token: user.token });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.body).toEqual({ error: 'Document not found.' });
    const deleteElsewhere = await platform.request('DELETE', `/user/knowledgebases/${kbB}/documents/${id}`, { token: user.token });
    expect(deleteElsewhere.body).toEqual({ error: 'Document not found.' });
  });
});
