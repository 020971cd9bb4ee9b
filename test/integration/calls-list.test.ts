import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { insertCalls, spokenTurns } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

// The list of calls: its filters, its counts and its pages. One call, read and deleted, is in calls-by-id.test.ts.

const ids = (body: { data: { id: number }[] }) => body.data.map((call) => call.id);

describe('calls', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const get = (user: TestUser, path: string) => platform.request('GET', path, { token: user.token });

  describe('GET /user/calls', () => {
    it('filters by each parameter, and by several at once', async () => {
      const user = await createTestUser(knex());
      const other = await createTestUser(knex());
      const [a, b, c, d, e] = await insertCalls(knex(), user.id, [
        { status: 'completed', type: 'outbound', assistant_id: null, campaign_id: 5, client_phone_number: '+40721000001', created_at: '2026-03-01T00:00:00Z' },
        { status: 'failed', type: 'outbound', campaign_id: 5, client_phone_number: '+40721000002', created_at: '2026-03-01T23:59:59Z' },
        { status: 'completed', type: 'inbound', client_phone_number: '+40721000001', created_at: '2026-03-02T00:00:00Z' },
        { status: 'completed', type: 'web', created_at: '2026-03-03T12:00:00Z' },
        { status: 'no-answer', type: 'outbound', campaign_id: 6, client_phone_number: '+40721000001', created_at: '2026-03-04T00:00:00Z' },
      ]);
      await insertCalls(knex(), other.id, [{ status: 'completed', type: 'outbound', campaign_id: 5, client_phone_number: '+40721000001' }]);
      const list = async (query: string) => {
        const response = await get(user, `/user/calls?${query}`);
        expect(response.status).toBe(200);
        expect(response.body.total).toBe(response.body.data.length);
        return ids(response.body);
      };

      expect(await list('')).toEqual([e, d, c, b, a]);
      expect(await list('status=completed')).toEqual([d, c, a]);
      expect(await list('type=outbound')).toEqual([e, b, a]);
      expect(await list('campaign_id=5')).toEqual([b, a]);
      expect(await list('phone_number=%2B40721000001')).toEqual([e, c, a]);
      // Without the `+`, and with it unencoded (it arrives as a space).
      expect(await list('phone_number=40721000001')).toEqual([e, c, a]);
      expect(await list('phone_number=+40721000001')).toEqual([e, c, a]);
      expect(await list('date_from=2026-03-01&date_to=2026-03-01')).toEqual([b, a]);
      expect(await list('date_from=2026-03-02')).toEqual([e, d, c]);
      expect(await list('date_to=2026-03-02')).toEqual([c, b, a]);
      expect(await list('status=completed&type=outbound')).toEqual([a]);
      expect(await list('status=completed&date_from=2026-03-02&date_to=2026-03-03')).toEqual([d, c]);
      expect(await list('phone_number=40721000001&type=outbound&date_from=2026-03-02')).toEqual([e]);
      expect(await list('status=busy')).toEqual([]);
      expect(await list('date_from=2027-01-01')).toEqual([]);
    });

    it('counts date ranges over whole months and the days at their edges, in UTC', async () => {
      const user = await createTestUser(knex());
      const at = ['2025-12-31T23:59:59Z', '2026-01-01T00:00:00Z', '2026-01-31T23:59:59Z', '2026-02-01T00:00:00Z', '2026-02-28T23:59:59Z', '2026-03-01T00:00:00Z', '2026-04-15T12:00:00Z'];
      const created = await insertCalls(knex(), user.id, at.map((createdAt) => ({ created_at: createdAt })));
      const list = async (query: string) => {
        const { body } = await get(user, `/user/calls?${query}`);
        expect(body.total).toBe(body.data.length);
        return ids(body).map((id: number) => at[created.indexOf(id)]);
      };
      expect(await list('date_from=2026-01-01&date_to=2026-02-28')).toEqual(at.slice(1, 5).reverse());
      expect(await list('date_from=2026-01-31&date_to=2026-03-01')).toEqual(at.slice(2, 6).reverse());
      expect(await list('date_from=2025-12-15&date_to=2026-04-15')).toEqual([...at].reverse());
      expect(await list('date_from=2026-02-01')).toEqual(at.slice(3).reverse());
      expect(await list('date_to=2026-01-31')).toEqual(at.slice(0, 3).reverse());
      expect(await list('date_from=2026-03-02&date_to=2026-04-14')).toEqual([]);
    });

    it('filters by assistant, and keeps counting right as calls change status and are deleted', async () => {
      const user = await createTestUser(knex());
      const { id: assistantId } = await createTestAssistant(platform, user);
      const [first, second, third] = await insertCalls(knex(), user.id, [
        { assistant_id: assistantId, status: 'in-progress' },
        { assistant_id: assistantId, status: 'in-progress' },
        { status: 'in-progress' },
      ]);
      expect(ids((await get(user, `/user/calls?assistant_id=${assistantId}`)).body)).toEqual([second, first]);

      await knex()('calls').where({ id: first }).update({ status: 'completed' });
      await knex()('calls').where({ id: third }).update({ turns: JSON.stringify(spokenTurns(new Date(), [{ role: 'user', text: 'x', fromMs: 0, toMs: 400 }])) });
      const count = async (query: string) => (await get(user, `/user/calls?${query}`)).body.total as number;
      expect(await count('status=in-progress')).toBe(2);
      expect(await count('status=completed')).toBe(1);
      expect(await count(`status=completed&assistant_id=${assistantId}&date_from=2000-01-01`)).toBe(1);

      // Deleting the assistant keeps its calls, now without one.
      await knex()('assistants').where({ id: assistantId }).delete();
      expect(await count(`assistant_id=${assistantId}`)).toBe(0);
      expect(await count('')).toBe(3);
      expect((await platform.request('DELETE', `/user/calls/${second}`, { token: user.token })).status).toBe(200);
      expect(await count('status=in-progress')).toBe(1);
      expect(await count('')).toBe(2);
    });

    it('paginates newest first like Laravel, keeping the filters in every page link', async () => {
      const user = await createTestUser(knex());
      const all = await insertCalls(knex(), user.id, Array.from({ length: 8 }, (_, index) => ({ status: index === 3 ? 'failed' : 'completed' })));
      const completed = all.filter((_, index) => index !== 3).reverse();
      const page = async (number: number) => (await get(user, `/user/calls?status=completed&per_page=3&page=${number}`)).body;

      const first = await page(1);
      const path = `${platform.config.publicUrl}/api/user/calls`;
      expect(first).toMatchObject({
        current_page: 1, per_page: 3, total: 7, last_page: 3, from: 1, to: 3, path,
        first_page_url: `${path}?status=completed&per_page=3&page=1`,
        last_page_url: `${path}?status=completed&per_page=3&page=3`,
        next_page_url: `${path}?status=completed&per_page=3&page=2`,
        prev_page_url: null,
      });
      expect(first.links.map((link: { label: string }) => link.label)).toEqual(['&laquo; Previous', '1', '2', '3', 'Next &raquo;']);
      // Pages near the oldest end are read from it: the same order either way.
      const pages = [first, await page(2), await page(3)];
      expect(pages.flatMap(ids)).toEqual(completed);
      expect(pages[2]).toMatchObject({ from: 7, to: 7, next_page_url: null, prev_page_url: `${path}?status=completed&per_page=3&page=2` });
      expect(await page(4)).toMatchObject({ data: [], from: null, to: null, total: 7 });
      const fifteen = await get(user, '/user/calls');
      expect(fifteen.body.per_page).toBe(15);
    });

    it('answers 422 in the Laravel shape for filters out of their rules', async () => {
      const user = await createTestUser(knex());
      const cases: [string, string, string][] = [
        ['status=done', 'status', 'The selected status is invalid.'],
        ['type=sms', 'type', 'The selected type is invalid.'],
        ['per_page=101', 'per_page', 'The per page field must be between 1 and 100.'],
        ['per_page=0', 'per_page', 'The per page field must be between 1 and 100.'],
        ['assistant_id=x', 'assistant_id', 'The assistant id field must be an integer.'],
        ['date_from=2026-13-01', 'date_from', 'The date from field must match the format Y-m-d.'],
        ['date_to=01/02/2026', 'date_to', 'The date to field must match the format Y-m-d.'],
        ['date_from=2026-03-02&date_to=2026-03-01', 'date_to', 'The date to field must be a date after or equal to date from.'],
        ['phone_number=call-me', 'phone_number', 'The phone number field must be a phone number in E.164 format.'],
      ];
      for (const [query, field, message] of cases) {
        const response = await get(user, `/user/calls?${query}`);
        expect(response.status, query).toBe(422);
        expect(response.body, query).toEqual({ message, errors: { [field]: [message] } });
      }
    });
  });
});
