import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/**
 * The account's dialing allow-list (`/user/dialing-countries`, a Parley extension): by default the countries of
 * its own numbers; set, the countries `make_call` (and SMS and transfers) may reach instead.
 */
describe('the dialing allow-list', () => {
  let platform: TestPlatform;
  let owner: TestUser;
  let assistantId: number;
  const placed: number[] = [];

  beforeAll(async () => {
    // A language model is configured (never asked: no worker runs the calls here); calls are placed only where one is.
    platform = await startTestPlatform({ env: { LLM_BASE_URL: 'http://127.0.0.1:9', LLM_API_KEY: 'test' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    // A number of this owner's own: on PostgreSQL the test files share one database, and the numbers they use.
    const ownNumber = `+16282${String(owner.id).padStart(6, '0').slice(-6)}`;
    const [number] = await platform.database.knex('phone_numbers')
      .insert({ userId: owner.id, phoneNumber: ownNumber, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active' }).returning('id');
    assistantId = (await createTestAssistant(platform, owner, { phone_number_id: (number as { id: number }).id })).id;
  });
  afterAll(async () => {
    // The calls placed here wait for a worker that never comes.
    for (const callId of placed) await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).terminate('test over');
    await platform.close();
  });

  const list = () => platform.request('GET', '/user/dialing-countries', { token: owner.token });
  const set = (body: unknown) => platform.request('PUT', '/user/dialing-countries', { token: owner.token, body });
  const call = async (phoneNumber: string) => {
    const answer = await platform.request('POST', '/user/make_call', { token: owner.token, body: { phone_number: phoneNumber, assistant_id: assistantId } });
    if (answer.status === 200) placed.push(answer.body.call_id as number);
    return answer;
  };

  it('is the countries of the account\'s numbers by default, and any list of countries the account sets', async () => {
    expect(await list()).toMatchObject({ status: 200, body: { data: { countries: ['US'], default: true } } });
    expect(await call('+442079460123')).toMatchObject({
      status: 422, body: { message: 'Calls to GB numbers are not allowed for this account: it calls the countries of its own phone numbers (US).' },
    });

    expect(await set({ countries: ['gb', 'US', 'GB'] })).toMatchObject({ status: 200, body: { data: { countries: ['GB', 'US'], default: false } } });
    expect((await list()).body).toEqual({ data: { countries: ['GB', 'US'], default: false } });
    expect(await call('+442079460123')).toMatchObject({ status: 200, body: { status: 'initiated' } });
    expect(await call('+33142685300')).toMatchObject({
      status: 422, body: { message: 'Calls to FR numbers are not allowed for this account: it calls the countries it allows (GB, US).' },
    });

    expect(await set({ countries: null })).toMatchObject({ status: 200, body: { data: { countries: ['US'], default: true } } });
    expect((await call('+442079460123')).status).toBe(422);
    await set({ countries: ['FR'] });
    expect(await set({ countries: [] })).toMatchObject({ status: 200, body: { data: { countries: ['US'], default: true } } });
  });

  it('refuses what is not a list of known country codes with the contract\'s 422, changing nothing', async () => {
    await set({ countries: ['GB'] });
    const invalid = async (body: unknown, errors: Record<string, string[]>) => {
      const answer = await set(body);
      expect(answer.status, answer.text).toBe(422);
      expect(answer.body).toEqual({ message: expect.any(String), errors });
    };
    await invalid({ countries: ['US', 'G1'] }, { 'countries.1': ['The countries.1 field must be a two-letter country code (ISO 3166-1 alpha-2).'] });
    await invalid({ countries: ['us', 'xx'] }, { 'countries.1': ['The countries.1 field is not a country with phone numbers: XX.'] });
    await invalid({ countries: Array.from({ length: 51 }, () => 'US') }, { countries: ['The countries field must not have more than 50 items.'] });
    await invalid({}, { countries: ['The countries field is required.'] });
    await invalid({ countries: 'US' }, { countries: [expect.stringContaining('must be')] });
    expect((await list()).body).toEqual({ data: { countries: ['GB'], default: false } });
    expect((await platform.request('GET', '/user/dialing-countries')).status).toBe(401);
  });
});
