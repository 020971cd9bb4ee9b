import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const SQL_TIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

describe('leads', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  /** A user with a campaign of theirs; `name` names the campaign. */
  const owner = async (name = 'Spring') => {
    const user = await createTestUser(knex());
    const assistant = await createTestAssistant(platform, user);
    const campaign = (await platform.request('POST', '/user/campaign', { token: user.token, body: { name, assistant_id: assistant.id } })).body.data as { id: number; name: string };
    return { user, campaign, assistantId: assistant.id };
  };
  const addLead = (user: TestUser, body: Record<string, unknown>) => platform.request('POST', '/user/lead', { token: user.token, body });

  describe('POST /api/user/lead', () => {
    it('creates the lead and its secondary contacts (200, §8.1 shape), numbers in E.164, `variable` taken as `variables`', async () => {
      const { user, campaign } = await owner();
      const response = await addLead(user, {
        phone_number: '+1 (415) 555-0101',
        campaign_id: String(campaign.id),
        variables: { customer_name: 'Ada', email: 'ada@example.com' },
        variable: { customer_name: 'ignored: variables wins', plan: 'gold' },
        secondary_contacts: [{ phone_number: '+14155550102', variables: { role: 'office' } }, { phone_number: '0044 20 7946 0958' }],
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        message: 'Lead created successfully',
        data: {
          id: expect.any(Number),
          campaign_id: campaign.id,
          phone_number: '+14155550101',
          variables: { customer_name: 'Ada', email: 'ada@example.com', plan: 'gold' },
          status: 'created',
          created_at: expect.stringMatching(SQL_TIME),
          updated_at: expect.stringMatching(SQL_TIME),
          campaign: { id: campaign.id, name: 'Spring' },
          secondary_contacts: [
            { id: expect.any(Number), phone_number: '+14155550102', variables: { role: 'office' }, status: 'created', created_at: expect.stringMatching(SQL_TIME), updated_at: expect.stringMatching(SQL_TIME) },
            { id: expect.any(Number), phone_number: '+442079460958', variables: {}, status: 'created', created_at: expect.stringMatching(SQL_TIME), updated_at: expect.stringMatching(SQL_TIME) },
          ],
        },
      });
      const rows = await knex()('leads').where({ campaignId: campaign.id }).orderBy('id');
      expect(rows.map((row) => [row.primaryLeadId, row.contactOrder, row.attempts, row.nextAttemptAt, row.lastCallId])).toEqual([
        [null, 0, 0, null, null],
        [response.body.data.id, 1, 0, null, null],
        [response.body.data.id, 2, 0, null, null],
      ]);
    });

    it('refuses a number the campaign already has with a 422, unless allow_dupplicate', async () => {
      const { user, campaign } = await owner();
      expect((await addLead(user, { phone_number: '+14155550101', campaign_id: campaign.id })).status).toBe(200);
      const duplicate = await addLead(user, { phone_number: '+1 415 555 0101', campaign_id: campaign.id });
      expect(duplicate).toMatchObject({
        status: 422,
        body: {
          message: 'This phone number is already a lead of this campaign. Send allow_dupplicate: true to add it again.',
          errors: { phone_number: ['This phone number is already a lead of this campaign. Send allow_dupplicate: true to add it again.'] },
        },
      });
      expect((await addLead(user, { phone_number: '+14155550101', campaign_id: campaign.id, allow_dupplicate: true })).status).toBe(200);
      // Another campaign is another list.
      const other = (await platform.request('POST', '/user/campaign', { token: user.token, body: { name: 'Other', assistant_id: (await createTestAssistant(platform, user)).id } })).body.data;
      expect((await addLead(user, { phone_number: '+14155550101', campaign_id: other.id })).status).toBe(200);
    });

    it('answers invalid numbers with 422 "Invalid phone number" by field, and a campaign not of the caller with 404', async () => {
      const { user, campaign } = await owner();
      const invalid = await addLead(user, { phone_number: '555-0101', campaign_id: campaign.id, secondary_contacts: [{ phone_number: '+14155550102' }, { phone_number: '+1999' }] });
      expect(invalid).toMatchObject({
        status: 422,
        body: {
          message: 'Invalid phone number (and 1 more error)',
          errors: { phone_number: ['Invalid phone number'], 'secondary_contacts.1.phone_number': ['Invalid phone number'] },
        },
      });
      const missing = await addLead(user, {});
      expect(missing.body.errors).toEqual({ phone_number: ['The phone number field is required.'], campaign_id: ['The campaign id field is required.'] });
      const stranger = await owner();
      expect(await addLead(user, { phone_number: '+14155550101', campaign_id: stranger.campaign.id })).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
      expect(await knex()('leads').where({ userId: user.id })).toEqual([]);
    });
  });

  describe('GET /api/user/leads', () => {
    it('pages the main leads newest first with their contacts, and filters by status, campaign, number part and day', async () => {
      const { user, campaign } = await owner();
      const second = (await platform.request('POST', '/user/campaign', { token: user.token, body: { name: 'Autumn', assistant_id: (await createTestAssistant(platform, user)).id } })).body.data;
      const ids: number[] = [];
      for (let index = 0; index < 4; index++) {
        const created = await addLead(user, { phone_number: `+1415555012${index}`, campaign_id: index < 3 ? campaign.id : second.id, secondary_contacts: index === 0 ? [{ phone_number: '+14155550199' }] : [] });
        ids.push(created.body.data.id);
      }
      // Another user's lead, never listed.
      const stranger = await owner();
      expect((await addLead(stranger.user, { phone_number: '+14155550123', campaign_id: stranger.campaign.id })).status).toBe(200);
      await knex()('leads').where({ id: ids[1] }).update({ status: 'completed', createdAt: new Date('2026-01-15T10:00:00Z') });

      const page = await platform.request('GET', '/user/leads?per_page=2', { token: user.token });
      expect(page.status).toBe(200);
      expect(page.body).toMatchObject({
        current_page: 1, per_page: 2, total: 4, last_page: 2, from: 1, to: 2, prev_page_url: null,
        next_page_url: `${platform.config.publicUrl}/api/user/leads?per_page=2&page=2`,
        path: `${platform.config.publicUrl}/api/user/leads`,
      });
      expect(page.body.data.map((lead: { id: number }) => lead.id)).toEqual([ids[3], ids[2]]);
      const last = await platform.request('GET', '/user/leads?per_page=2&page=2', { token: user.token });
      expect(last.body.data[1]).toMatchObject({ id: ids[0], campaign: { id: campaign.id, name: 'Spring' }, secondary_contacts: [{ phone_number: '+14155550199', status: 'created' }] });

      const ofQuery = async (query: string) => (await platform.request('GET', `/user/leads?${query}`, { token: user.token })).body.data.map((lead: { id: number }) => lead.id);
      expect(await ofQuery('status=completed')).toEqual([ids[1]]);
      expect(await ofQuery(`campaign_id=${second.id}`)).toEqual([ids[3]]);
      expect(await ofQuery('phone_number=5550122')).toEqual([ids[2]]);
      expect(await ofQuery('phone_number=%2B1%20415')).toEqual([ids[3], ids[2], ids[1], ids[0]]);
      expect(await ofQuery('date_from=2026-01-15&date_to=2026-01-15')).toEqual([ids[1]]);
      expect(await ofQuery('date_to=2026-01-14')).toEqual([]);
    });

    it('refuses bad filters in the validation shape', async () => {
      const { user } = await owner();
      const response = await platform.request('GET', '/user/leads?per_page=101&status=done&date_from=15-01-2026&phone_number=abc', { token: user.token });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({
        status: ['The selected status is invalid.'],
        phone_number: ['The phone number field must contain only digits, spaces, +, -, ( and ).'],
        date_from: ['The date from field must match the format Y-m-d.'],
        per_page: ['The per page field must be between 1 and 100.'],
      });
    });
  });

  describe('updating a lead', () => {
    it('changes only what is sent at all three paths, merging variables and formatting the number', async () => {
      const { user, campaign } = await owner();
      const created = (await addLead(user, { phone_number: '+14155550101', campaign_id: campaign.id, variables: { customer_name: 'Ada', email: 'a@example.com' } })).body.data;
      const put = await platform.request('PUT', `/user/leads/${created.id}`, { token: user.token, body: { variables: { email: 'ada@example.com', tier: 1 } } });
      expect(put).toMatchObject({ status: 200, body: { message: 'Lead updated successfully' } });
      const legacy = await platform.request('PUT', `/leads/${created.id}`, { token: user.token, body: { phone_number: '+44 20 7946 0958', status: 'completed' } });
      expect(legacy.status).toBe(200);
      const patch = await platform.request('PATCH', `/user/leads/${created.id}`, { token: user.token, body: { variable: { note: 'called back' } } });
      expect(patch.status).toBe(200);
      const row = await knex()('leads').where({ id: created.id }).first();
      expect(row).toMatchObject({
        phoneNumber: '+442079460958', status: 'completed', campaignId: campaign.id,
        variables: { customer_name: 'Ada', email: 'ada@example.com', tier: 1, note: 'called back' },
      });
    });

    it('moves a lead with its secondary contacts to another campaign of the caller', async () => {
      const { user, campaign } = await owner();
      const other = (await platform.request('POST', '/user/campaign', { token: user.token, body: { name: 'Other', assistant_id: (await createTestAssistant(platform, user)).id } })).body.data;
      const created = (await addLead(user, { phone_number: '+14155550101', campaign_id: campaign.id, secondary_contacts: [{ phone_number: '+14155550102' }] })).body.data;
      expect((await platform.request('PUT', `/user/leads/${created.id}`, { token: user.token, body: { campaign_id: other.id } })).status).toBe(200);
      expect((await knex()('leads').where({ campaignId: other.id })).length).toBe(2);
      const contact = created.secondary_contacts[0].id;
      expect(await platform.request('PUT', `/user/leads/${contact}`, { token: user.token, body: { campaign_id: campaign.id } })).toMatchObject({
        status: 422, body: { errors: { campaign_id: ['A secondary contact stays in the campaign of its lead.'] } },
      });
    });

    it('answers "Lead not found", "Campaign not found", "Invalid phone number", and refuses other fields and statuses', async () => {
      const { user, campaign } = await owner();
      const created = (await addLead(user, { phone_number: '+14155550101', campaign_id: campaign.id })).body.data;
      const put = (id: number, body: Record<string, unknown>) => platform.request('PUT', `/user/leads/${id}`, { token: user.token, body });
      expect(await put(999_999_999, { status: 'completed' })).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
      const stranger = await owner();
      expect(await platform.request('PUT', `/user/leads/${created.id}`, { token: stranger.user.token, body: { status: 'completed' } })).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
      expect(await put(created.id, { campaign_id: stranger.campaign.id })).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
      expect(await put(created.id, { phone_number: '12' })).toMatchObject({ status: 422, body: { message: 'Invalid phone number', errors: { phone_number: ['Invalid phone number'] } } });
      expect(await put(created.id, { status: 'processing' })).toMatchObject({ status: 422, body: { errors: { status: ['The selected status is invalid.'] } } });
      expect(await put(created.id, { attempts: 0, created_at: 'x' })).toMatchObject({
        status: 422,
        body: { errors: { attempts: ['The attempts field cannot be updated.'], created_at: ['The created at field cannot be updated.'] } },
      });
      expect(await knex()('leads').where({ id: created.id }).first()).toMatchObject({ phoneNumber: '+14155550101', status: 'created', campaignId: campaign.id });
    });
  });

  describe('DELETE /api/user/leads/{id}', () => {
    it('deletes the lead with its secondary contacts; 404 "Lead not found" after, and for another user', async () => {
      const { user, campaign } = await owner();
      const created = (await addLead(user, { phone_number: '+14155550101', campaign_id: campaign.id, secondary_contacts: [{ phone_number: '+14155550102' }] })).body.data;
      const stranger = await owner();
      expect(await platform.request('DELETE', `/user/leads/${created.id}`, { token: stranger.user.token })).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
      expect(await platform.request('DELETE', `/user/leads/${created.id}`, { token: user.token })).toMatchObject({ status: 200, body: { message: 'Lead deleted successfully' } });
      expect(await knex()('leads').where({ campaignId: campaign.id })).toEqual([]);
      expect(await platform.request('DELETE', `/user/leads/${created.id}`, { token: user.token })).toMatchObject({ status: 404, body: { message: 'Lead not found' } });
    });
  });
});
