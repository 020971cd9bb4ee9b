import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

describe('campaigns', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const digits = () => String(Math.floor(Math.random() * 9_000_000) + 1_000_000);
  const seedNumber = async (user: TestUser, fields: Record<string, unknown> = {}) => {
    const [row] = await knex()('phone_numbers').insert({ userId: user.id, phoneNumber: `+1415${digits()}`, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active', ...fields }).returning('id');
    return (row as { id: number }).id;
  };
  /** A user with an outbound assistant whose evaluation has a bool `booked` and a string `summary`. */
  const owner = async () => {
    const user = await createTestUser(knex());
    const assistant = await createTestAssistant(platform, user, {
      post_call_schema: [
        { name: 'booked', type: 'bool', description: 'Whether a meeting was booked' },
        { name: 'summary', type: 'string', description: 'What was said' },
      ],
    });
    return { user, assistantId: assistant.id };
  };
  const create = (user: TestUser, body: Record<string, unknown>, path = '/user/campaign') => platform.request('POST', path, { token: user.token, body });

  it('creates a draft campaign at both paths with the defaults of §7.1', async () => {
    const { user, assistantId } = await owner();
    await knex()('users').where({ id: user.id }).update({ timezone: 'America/New_York' });
    for (const path of ['/user/campaign', '/user/campaigns']) {
      const response = await create(user, { name: 'Spring', assistant_id: assistantId }, path);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({
        message: 'Campaign created successfully',
        data: {
          id: expect.any(Number),
          name: 'Spring',
          status: 'draft',
          max_calls_in_parallel: 3,
          mark_complete_when_no_leads: true,
          allowed_hours_start_time: '00:00:00',
          allowed_hours_end_time: '23:59:00',
          allowed_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'],
          max_retries: 3,
          retry_interval: 60,
          created_at: expect.stringMatching(ISO),
          updated_at: expect.stringMatching(ISO),
          assistant_id: assistantId,
          timezone: 'America/New_York',
          retry_on_voicemail: false,
          retry_on_goal_incomplete: false,
          goal_completion_variable: null,
          phone_number_ids: [],
        },
      });
    }
  });

  it('takes every field: HH:MM answered as HH:MM:SS, days in week order, numbers in rotation order, the goal variable', async () => {
    const { user, assistantId } = await owner();
    const first = await seedNumber(user);
    const second = await seedNumber(user);
    const response = await create(user, {
      name: 'Evening', assistant_id: String(assistantId), timezone: 'Europe/Berlin', max_calls_in_parallel: 10,
      allowed_hours_start_time: '18:30', allowed_hours_end_time: '02:00:00', allowed_days: ['friday', 'monday', 'friday'],
      max_retries: 5, retry_interval: 4320, retry_on_voicemail: true, retry_on_goal_incomplete: true, goal_completion_variable: 'booked',
      mark_complete_when_no_leads: false, phone_number_ids: [second, first],
    });
    expect(response.status).toBe(201);
    expect(response.body.data).toMatchObject({
      assistant_id: assistantId, timezone: 'Europe/Berlin', max_calls_in_parallel: 10, allowed_hours_start_time: '18:30:00', allowed_hours_end_time: '02:00:00',
      allowed_days: ['monday', 'friday'], max_retries: 5, retry_interval: 4320, retry_on_voicemail: true, retry_on_goal_incomplete: true,
      goal_completion_variable: 'booked', mark_complete_when_no_leads: false, phone_number_ids: [second, first],
    });
  });

  it('refuses what §7.1 rules out, in the validation shape', async () => {
    const { user, assistantId } = await owner();
    const other = await createTestUser(knex());
    const foreignNumber = await seedNumber(other);
    const own = await seedNumber(user);
    const released = await seedNumber(user, { status: 'released' });
    const errorsOf = async (fields: Record<string, unknown>) => {
      const response = await create(user, { name: 'X', assistant_id: assistantId, ...fields });
      expect(response.status).toBe(422);
      return response.body.errors as Record<string, string[]>;
    };
    expect((await create(user, {})).body).toEqual({
      message: 'The name field is required. (and 1 more error)',
      errors: { name: ['The name field is required.'], assistant_id: ['The assistant id field is required.'] },
    });
    expect(await errorsOf({ timezone: 'Mars/Olympus' })).toEqual({ timezone: ['The timezone field must be a valid timezone.'] });
    expect(await errorsOf({ max_calls_in_parallel: 11 })).toEqual({ max_calls_in_parallel: ['The max calls in parallel field must not be greater than 10.'] });
    expect(await errorsOf({ max_calls_in_parallel: 0 })).toEqual({ max_calls_in_parallel: ['The max calls in parallel field must be at least 1.'] });
    expect(await errorsOf({ allowed_hours_start_time: '24:00', allowed_hours_end_time: '9am' })).toEqual({
      allowed_hours_start_time: ['The allowed hours start time field must match the format H:i.'],
      allowed_hours_end_time: ['The allowed hours end time field must match the format H:i.'],
    });
    expect(await errorsOf({ allowed_days: ['Monday'] })).toEqual({ 'allowed_days.0': ['The selected allowed days.0 is invalid.'] });
    expect(await errorsOf({ allowed_days: [] })).toEqual({ allowed_days: ['The allowed days field is required.'] });
    expect(await errorsOf({ max_retries: 6, retry_interval: 9 })).toEqual({
      max_retries: ['The max retries field must be between 1 and 5.'],
      retry_interval: ['The retry interval field must be between 10 and 4320.'],
    });
    expect(await errorsOf({ goal_completion_variable: 'summary' })).toEqual({
      goal_completion_variable: ["The goal completion variable must name a bool field of the assistant's post_call_schema."],
    });
    expect(await errorsOf({ goal_completion_variable: 'x'.repeat(256) })).toEqual({
      goal_completion_variable: ['The goal completion variable field must not be greater than 255 characters.'],
    });
    expect(await errorsOf({ phone_number_ids: [own, own, foreignNumber, released] })).toEqual({
      'phone_number_ids.1': ['The phone number ids.1 field has a duplicate value.'],
      'phone_number_ids.2': ['The selected phone number ids.2 is invalid.'],
      'phone_number_ids.3': ['The selected phone number ids.3 is invalid.'],
    });
    expect(await knex()('campaigns').where({ userId: user.id })).toEqual([]);
  });

  it("answers 404 for an inbound or another user's assistant", async () => {
    const { user } = await owner();
    const inbound = await createTestAssistant(platform, user, { type: 'inbound' });
    const stranger = await owner();
    for (const assistantId of [inbound.id, stranger.assistantId]) {
      const response = await create(user, { name: 'X', assistant_id: assistantId });
      expect(response).toMatchObject({ status: 404, body: { message: 'Assistant not found or not an outbound assistant.' } });
    }
  });

  it("caps the count at the plan's limit with the 403 of §7.1, and the parallel calls at its concurrent calls", async () => {
    const { user, assistantId } = await owner();
    const planId = `campaigns-${user.id}`;
    await knex()('plans').insert({ id: planId, name: 'Small', campaigns: 1, maxCallsInParallel: 2 });
    await knex()('users').where({ id: user.id }).update({ planId });
    const first = await create(user, { name: 'One', assistant_id: assistantId });
    expect(first.body.data.max_calls_in_parallel).toBe(2);
    const second = await create(user, { name: 'Two', assistant_id: assistantId });
    expect(second).toMatchObject({ status: 403, body: { message: 'You have reached the maximum number of campaigns allowed by your plan.' } });
    const update = await platform.request('PUT', `/user/campaigns/${first.body.data.id}`, { token: user.token, body: { max_calls_in_parallel: 3 } });
    expect(update).toMatchObject({ status: 422, body: { errors: { max_calls_in_parallel: ['The max calls in parallel field must not be greater than 2.'] } } });
  });

  it('lists the caller\'s campaigns as a bare array, and reads one with its progress', async () => {
    const { user, assistantId } = await owner();
    const a = (await create(user, { name: 'A', assistant_id: assistantId, timezone: 'UTC', allowed_days: ['monday'], allowed_hours_start_time: '09:00', allowed_hours_end_time: '10:00' })).body.data;
    const b = (await create(user, { name: 'B', assistant_id: assistantId })).body.data;
    await create((await owner()).user, { name: 'Not mine', assistant_id: assistantId });
    const list = await platform.request('GET', '/user/campaigns', { token: user.token });
    expect(list.status).toBe(200);
    expect(list.body).toEqual([a, b]);

    await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: a.id, phone_number: '+14155550101', secondary_contacts: [{ phone_number: '+14155550102' }] } });
    await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: a.id, phone_number: '+14155550103' } });
    const [lead] = await knex()('leads').where({ campaignId: a.id, phoneNumber: '+14155550103' });
    await knex()('leads').where({ id: lead.id }).update({ status: 'completed' });
    await knex()('calls').insert({ userId: user.id, assistantId, assistantName: 'Test Assistant', campaignId: a.id, campaignName: 'A', type: 'outbound', status: 'in-progress', clientPhoneNumber: '+14155550101' });
    const one = await platform.request('GET', `/user/campaigns/${a.id}`, { token: user.token });
    expect(one.status).toBe(200);
    const { progress, ...campaign } = one.body;
    expect(campaign).toEqual(a);
    expect(progress).toEqual({
      leads: 3,
      leads_by_status: { created: 2, scheduled: 0, processing: 0, completed: 1, rescheduled: 0, 'reached-max-retries': 0, blacklisted: 0 },
      calls_in_progress: 1,
      next_window_opens_at: expect.stringMatching(ISO),
    });
    // Mondays 09:00-10:00 UTC: the next opening is a Monday at 09:00, or now when inside it.
    const opens = new Date(progress.next_window_opens_at);
    expect(opens.getUTCDay()).toBe(1);
    expect(opens.getUTCHours()).toBeGreaterThanOrEqual(9);
    expect(opens.getUTCHours()).toBeLessThan(11);
    expect(await platform.request('GET', `/user/campaigns/${a.id}`, { token: (await createTestUser(knex())).token })).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
  });

  it('updates only the fields sent, under the rules of creation', async () => {
    const { user, assistantId } = await owner();
    const number = await seedNumber(user);
    const created = (await create(user, { name: 'Old', assistant_id: assistantId, phone_number_ids: [number], goal_completion_variable: 'booked' })).body.data;
    const updated = await platform.request('PUT', `/user/campaigns/${created.id}`, { token: user.token, body: { name: 'New', allowed_hours_start_time: '08:15', phone_number_ids: [] } });
    expect(updated.status).toBe(200);
    expect(updated.body).toEqual({
      message: 'Campaign updated successfully',
      data: { ...created, name: 'New', allowed_hours_start_time: '08:15:00', phone_number_ids: [], updated_at: expect.stringMatching(ISO) },
    });
    const refused = await platform.request('PUT', `/user/campaigns/${created.id}`, { token: user.token, body: { goal_completion_variable: 'summary', retry_interval: 5 } });
    expect(refused).toMatchObject({ status: 422, body: { errors: { retry_interval: ['The retry interval field must be between 10 and 4320.'] } } });
    // Another assistant without a `booked` field cannot take over a campaign whose goal it cannot evaluate.
    const plain = await createTestAssistant(platform, user);
    const switched = await platform.request('PUT', `/user/campaigns/${created.id}`, { token: user.token, body: { assistant_id: plain.id } });
    expect(switched).toMatchObject({ status: 422, body: { errors: { goal_completion_variable: expect.any(Array) } } });
    const cleared = await platform.request('PUT', `/user/campaigns/${created.id}`, { token: user.token, body: { assistant_id: plain.id, goal_completion_variable: null } });
    expect(cleared.body.data).toMatchObject({ assistant_id: plain.id, goal_completion_variable: null });
    expect(await platform.request('PUT', '/user/campaigns/999999999', { token: user.token, body: { name: 'X' } })).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
  });

  it('deletes a campaign at both paths with its leads and number assignments; 404 after', async () => {
    const { user, assistantId } = await owner();
    const number = await seedNumber(user);
    for (const path of ['/user/campaign', '/user/campaigns']) {
      const campaign = (await create(user, { name: 'Gone', assistant_id: assistantId, phone_number_ids: [number] })).body.data;
      await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: campaign.id, phone_number: '+14155550104', secondary_contacts: [{ phone_number: '+14155550105' }] } });
      const deleted = await platform.request('DELETE', `${path}/${campaign.id}`, { token: user.token });
      expect(deleted).toMatchObject({ status: 200, body: { message: 'Campaign deleted successfully' } });
      expect(await knex()('leads').where({ campaignId: campaign.id })).toEqual([]);
      expect(await knex()('campaign_phone_numbers').where({ campaignId: campaign.id })).toEqual([]);
      expect(await platform.request('DELETE', `${path}/${campaign.id}`, { token: user.token })).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
    }
    expect(await knex()('phone_numbers').where({ id: number }).first()).toMatchObject({ status: 'active' });
  });

  it('needs credentials', async () => {
    expect(await platform.request('GET', '/user/campaigns')).toMatchObject({ status: 401, body: { message: 'Unauthenticated.' } });
  });
});
