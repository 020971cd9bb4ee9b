import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

describe('POST /api/user/campaigns/{id}/leads/import', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const owner = async () => {
    const user = await createTestUser(knex());
    const assistant = await createTestAssistant(platform, user);
    const campaign = (await platform.request('POST', '/user/campaign', { token: user.token, body: { name: 'Import', assistant_id: assistant.id } })).body.data as { id: number };
    return { user, campaign };
  };
  const upload = (user: TestUser, campaignId: number, csv: string, query = '', contentType = 'text/csv') =>
    platform.request('POST', `/user/campaigns/${campaignId}/leads/import${query}`, { token: user.token, body: csv, headers: { 'content-type': contentType } });

  it('imports 20,000 rows in batches: numbers in E.164, other columns as variables, duplicates and invalid rows counted with their lines', async () => {
    const { user, campaign } = await owner();
    await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: campaign.id, phone_number: '+12025550000' } });
    const lines = ['Phone Number,customer_name,email'];
    for (let index = 0; index < 20_000; index++) {
      // Every 1000th row has a number already in the campaign (+12025550000) or in an earlier row; every 500th an invalid one.
      const phone = index % 1000 === 999 ? '+1 202 555 0000' : index % 1000 === 998 ? `+1202${String(5_000_001 + index - 1)}` : index % 500 === 7 ? 'not a number' : `+1202${String(5_000_001 + index)}`;
      lines.push(`${phone},"Lead, ${index}",lead${index}@example.com`);
    }
    const started = Date.now();
    const response = await upload(user, campaign.id, `${lines.join('\r\n')}\r\n`);
    const elapsed = Date.now() - started;
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ message: 'Leads imported', rows: 20_000, created: 19_920, duplicates: 40, invalid: 40, reasons_omitted: 0 });
    expect(response.body.reasons).toHaveLength(80);
    expect(response.body.reasons).toContainEqual({ row: 9, phone_number: 'not a number', reason: 'Invalid phone number' });
    expect(response.body.reasons).toContainEqual({ row: 1001, phone_number: '+1 202 555 0000', reason: 'Already a lead of this campaign' });
    // Row 1000 repeats row 999's number: the earlier row was created first.
    expect(response.body.reasons).toContainEqual({ row: 1000, phone_number: '+12025000998', reason: 'Already a lead of this campaign' });
    const [counted] = await knex()('leads').where({ campaignId: campaign.id }).count({ count: '*' });
    expect(Number(counted?.count)).toBe(19_921);
    const first = await knex()('leads').where({ campaignId: campaign.id, phoneNumber: '+12025000001' }).first();
    expect(first).toMatchObject({ status: 'created', userId: user.id, primaryLeadId: null, variables: { customer_name: 'Lead, 0', email: 'lead0@example.com' } });
    expect(elapsed).toBeLessThan(30_000);
  });

  it('takes a `phone` or `number` column, leaves empty cells out, and imports duplicates with allow_dupplicate', async () => {
    const { user, campaign } = await owner();
    const csv = '\uFEFFnumber;ignored\n'.replace(';', ',') + '14155550101,\n14155550101,x\n\n';
    const first = await upload(user, campaign.id, csv, '?allow_dupplicate=true');
    expect(first.body).toMatchObject({ rows: 2, created: 2, duplicates: 0, invalid: 0 });
    const rows = await knex()('leads').where({ campaignId: campaign.id }).orderBy('id');
    expect(rows.map((row) => [row.phoneNumber, row.variables])).toEqual([['+14155550101', {}], ['+14155550101', { ignored: 'x' }]]);
    const again = await upload(user, campaign.id, 'phone\n+14155550101\n,\n+1415555010,1\n', '', 'text/plain');
    expect(again.body).toMatchObject({
      rows: 3, created: 0, duplicates: 1, invalid: 2,
      reasons: [
        { row: 3, phone_number: '', reason: 'No phone number' },
        { row: 4, phone_number: '+1415555010', reason: 'The row has 2 fields; the header has 1' },
        { row: 2, phone_number: '+14155550101', reason: 'Already a lead of this campaign' },
      ],
    });
  });

  it('lists the first 100 reasons and counts the rest', async () => {
    const { user, campaign } = await owner();
    const response = await upload(user, campaign.id, `phone_number\n${'bad\n'.repeat(150)}`);
    expect(response.body).toMatchObject({ rows: 150, created: 0, invalid: 150, reasons_omitted: 50 });
    expect(response.body.reasons).toHaveLength(100);
    expect(response.body.reasons[99]).toEqual({ row: 101, phone_number: 'bad', reason: 'Invalid phone number' });
  });

  it('answers a file without a number column, an empty one and a malformed one with 422, keeping the rows before the fault', async () => {
    const { user, campaign } = await owner();
    expect(await upload(user, campaign.id, 'name,email\nAda,a@example.com\n')).toMatchObject({
      status: 422, body: { errors: { file: ['The CSV file needs a header row with a phone_number column (or phone, or number).'] } },
    });
    expect(await upload(user, campaign.id, 'phone,phone\n')).toMatchObject({ status: 422, body: { errors: { file: ['The CSV file\'s header names the column "phone" twice.'] } } });
    expect(await upload(user, campaign.id, '')).toMatchObject({ status: 422, body: { errors: { file: ['The CSV file is empty: it needs a header row with a phone_number column.'] } } });
    const good = Array.from({ length: 1500 }, (_, index) => `+1202${5_000_001 + index},Ada`);
    const malformed = await upload(user, campaign.id, `phone,name\n${good.join('\n')}\n+14155550102,"Bo\n`);
    expect(malformed.status).toBe(422);
    const [, created] = /^The CSV file is malformed: Quote Not Closed: .* at line 1502\. (\d+) leads from the rows before it were created; /.exec(malformed.body.errors.file[0]) ?? [];
    // The first thousand rows were a committed batch; the rows read after them up to the fault are kept too.
    expect(Number(created)).toBeGreaterThanOrEqual(1000);
    expect((await knex()('leads').where({ campaignId: campaign.id })).length).toBe(Number(created));
  });

  it('answers 404 "Campaign not found" for another user\'s campaign, 400 for another body type, 401 without a token', async () => {
    const { user } = await owner();
    const stranger = await owner();
    expect(await upload(user, stranger.campaign.id, 'phone\n+14155550101\n')).toMatchObject({ status: 404, body: { message: 'Campaign not found' } });
    expect(await upload(stranger.user, stranger.campaign.id, '{"phone":"+14155550101"}', '', 'application/json')).toMatchObject({
      status: 400, body: { message: 'The request body must be text/csv.' },
    });
    expect(await knex()('leads').where({ campaignId: stranger.campaign.id })).toEqual([]);
    expect((await platform.request('POST', `/user/campaigns/${stranger.campaign.id}/leads/import`, { body: 'phone\n', headers: { 'content-type': 'text/csv' } })).status).toBe(401);
  });
});
