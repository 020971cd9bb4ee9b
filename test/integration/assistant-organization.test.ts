import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

async function user(): Promise<TestUser> {
  return createTestUser(platform.database.knex);
}

async function make(owner: TestUser, noun: 'folder' | 'label', name: string): Promise<number> {
  const response = await platform.request('POST', `/user/${noun}`, { token: owner.token, body: { name } });
  expect(response.status).toBe(201);
  return response.body.data.id as number;
}

async function read(owner: TestUser, id: number): Promise<{ folder_id: number | null; label_ids: number[] }> {
  const response = await platform.request('GET', `/user/assistant/${id}`, { token: owner.token });
  expect(response.status).toBe(200);
  return response.body;
}

async function update(owner: TestUser, id: number, body: Record<string, unknown>) {
  return platform.request('PUT', `/user/assistant/${id}`, { token: owner.token, body });
}

async function count(owner: TestUser, noun: 'folder' | 'label', id: number): Promise<number> {
  return (await platform.request('GET', `/user/${noun}/${id}`, { token: owner.token })).body.assistants_count as number;
}

describe('an assistant in a folder with labels', () => {
  it('is created with folder_id and label_ids, shows them, and counts in the folder and the labels', async () => {
    const owner = await user();
    const folder = await make(owner, 'folder', 'Clients');
    const [inbound, vip] = [await make(owner, 'label', 'Inbound'), await make(owner, 'label', 'VIP')];
    const { id } = await createTestAssistant(platform, owner, { folder_id: folder, label_ids: [vip, inbound, vip] });
    expect(await read(owner, id)).toMatchObject({ folder_id: folder, label_ids: [inbound, vip] });
    expect(await count(owner, 'folder', folder)).toBe(1);
    expect(await count(owner, 'label', inbound)).toBe(1);
    const plain = await createTestAssistant(platform, owner);
    expect(await read(owner, plain.id)).toMatchObject({ folder_id: null, label_ids: [] });
    const listed = await platform.request('GET', '/user/folders', { token: owner.token });
    expect(listed.body.data).toEqual([{ id: folder, name: 'Clients', color: null, assistants_count: 1 }]);
  });

  it("refuses another user's folder and labels, and unknown ones, as invalid selections", async () => {
    const owner = await user();
    const stranger = await user();
    const mine = await make(owner, 'label', 'Mine');
    const theirs = await make(stranger, 'label', 'Theirs');
    const theirFolder = await make(stranger, 'folder', 'Theirs');
    const { id } = await createTestAssistant(platform, owner);
    const response = await update(owner, id, { folder_id: theirFolder, label_ids: [mine, mine, theirs, 999_999_999] });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      message: 'The selected folder id is invalid. (and 2 more errors)',
      errors: {
        folder_id: ['The selected folder id is invalid.'],
        'label_ids.2': ['The selected label ids.2 is invalid.'],
        'label_ids.3': ['The selected label ids.3 is invalid.'],
      },
    });
    expect(await read(owner, id)).toMatchObject({ folder_id: null, label_ids: [] });
    const typed = await update(owner, id, { folder_id: 'clients', label_ids: 'vip' });
    expect(typed.status).toBe(422);
    expect(typed.body.errors).toEqual({ folder_id: ['The folder id field must be an integer.'], label_ids: ['The label ids field must be an array.'] });
  });

  it('keeps what an update leaves out, moves with folder_id, clears with null, and replaces the labels whole ([] removes all)', async () => {
    const owner = await user();
    const [first, second] = [await make(owner, 'folder', 'First'), await make(owner, 'folder', 'Second')];
    const [a, b, c] = [await make(owner, 'label', 'A'), await make(owner, 'label', 'B'), await make(owner, 'label', 'C')];
    const { id } = await createTestAssistant(platform, owner, { folder_id: first, label_ids: [a, b] });

    expect((await update(owner, id, { name: 'Renamed' })).status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ folder_id: first, label_ids: [a, b] });

    expect((await update(owner, id, { folder_id: second, label_ids: [c] })).status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ folder_id: second, label_ids: [c] });
    expect([await count(owner, 'folder', first), await count(owner, 'folder', second), await count(owner, 'label', a)]).toEqual([0, 1, 0]);

    expect((await update(owner, id, { folder_id: null, label_ids: [] })).status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ folder_id: null, label_ids: [] });
  });

  it('stays when its folder is deleted, uncategorized, and loses a deleted label but keeps the others', async () => {
    const owner = await user();
    const folder = await make(owner, 'folder', 'Going');
    const [gone, kept] = [await make(owner, 'label', 'Gone'), await make(owner, 'label', 'Kept')];
    const { id } = await createTestAssistant(platform, owner, { folder_id: folder, label_ids: [gone, kept] });
    expect((await platform.request('DELETE', `/user/folders/${folder}`, { token: owner.token })).status).toBe(200);
    expect((await platform.request('DELETE', `/user/labels/${gone}`, { token: owner.token })).status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ folder_id: null, label_ids: [kept] });
  });
});

describe('GET /api/user/assistants/get and /api/user/assistants filtered by folder and label', () => {
  it('lists only the assistants in the folder, carrying the label, or both, and keeps the filters in the page links', async () => {
    const owner = await user();
    const folder = await make(owner, 'folder', 'Sales');
    const label = await make(owner, 'label', 'Live');
    const inFolder = await createTestAssistant(platform, owner, { folder_id: folder });
    const both = await createTestAssistant(platform, owner, { folder_id: folder, label_ids: [label] });
    const labelled = await createTestAssistant(platform, owner, { label_ids: [label] });
    await createTestAssistant(platform, owner);

    const ids = async (query: string) => {
      const response = await platform.request('GET', `/user/assistants/get?${query}`, { token: owner.token });
      expect(response.status).toBe(200);
      return (response.body.data as { id: number }[]).map((assistant) => assistant.id);
    };
    expect(await ids(`folder_id=${folder}`)).toEqual([inFolder.id, both.id]);
    expect(await ids(`label_id=${label}`)).toEqual([both.id, labelled.id]);
    expect(await ids(`folder_id=${folder}&label_id=${label}`)).toEqual([both.id]);

    const paged = await platform.request('GET', `/user/assistants/get?folder_id=${folder}&per_page=1`, { token: owner.token });
    expect(paged.body).toMatchObject({
      total: 2,
      next_page_url: `${platform.config.publicUrl}/api/user/assistants/get?folder_id=${folder}&per_page=1&page=2`,
    });
    const bare = await platform.request('GET', `/user/assistants?label_id=${label}`, { token: owner.token });
    expect((bare.body as { id: number }[]).map((assistant) => assistant.id)).toEqual([both.id, labelled.id]);
  });

  it("finds nothing through another user's folder or label, and refuses a filter that is not an id", async () => {
    const owner = await user();
    const stranger = await user();
    const theirFolder = await make(stranger, 'folder', 'Theirs');
    await createTestAssistant(platform, stranger, { folder_id: theirFolder });
    const response = await platform.request('GET', `/user/assistants/get?folder_id=${theirFolder}`, { token: owner.token });
    expect(response.body).toMatchObject({ total: 0, data: [] });
    const wrong = await platform.request('GET', '/user/assistants/get?folder_id=sales&label_id=0', { token: owner.token });
    expect(wrong.status).toBe(422);
    expect(wrong.body.errors).toEqual({ folder_id: ['The folder id field must be an integer.'], label_id: ['The label id field must be at least 1.'] });
  });
});
