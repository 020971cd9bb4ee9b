import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { workflowTypes, type CampaignInput } from '../../src/temporal/shared.ts';
import type { campaignWorkflow } from '../../workflows/campaign.ts';
import { type FakeLlmServer, type FakeTurn, lastUserText, startFakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/** The most intervals [from, to) open at one instant. */
function mostAtOnce(intervals: { from: number; to: number }[]): number {
  const edges = intervals.flatMap(({ from, to }) => [{ at: from, step: 1 }, { at: to, step: -1 }])
    // An interval ending at the instant another begins does not overlap it.
    .sort((a, b) => a.at - b.at || a.step - b.step);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.step;
    most = Math.max(most, open);
  }
  return most;
}

/**
 * A campaign on the embedded default, end to end: its workflow dials its leads through the sandbox carrier,
 * whose scripted callees (by the number's last two digits) answer, are busy, never answer, fail or are a
 * voicemail box, and settles each lead by the campaign's retry rules, retries counted in seconds
 * (CAMPAIGN_RETRY_UNIT=second, retry_interval 10, the least the API takes).
 */
describe.skipIf(!speechInstalled)(`a campaign dialing through the sandbox carrier${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  let assistantId: number;

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond((request): FakeTurn => {
      if (/goodbye/i.test(lastUserText(request))) return { reply: 'Thank you Sam, goodbye.' };
      return { reply: 'Nice to meet you, Sam. I am calling about Parley.' };
    });
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', CAMPAIGN_RETRY_UNIT: 'second' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    await platform.request('POST', '/user/payment-methods', { token: owner.token, body: { payment_method: 'pm_card_visa' } });
    const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: owner.token });
    const bought = await platform.request<{ data: { id: number } }>('POST', '/user/phone-numbers/purchase', { token: owner.token, body: { phone_number: offers.body.data[0]!.phone_number } });
    assistantId = (await createTestAssistant(platform, owner, { initial_message: 'Hello, this is Parley calling.', phone_number_id: bought.body.data.id, post_call_evaluation: false })).id;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const knex = () => platform.database.knex;

  it('calls every lead, at most 2 at once, retries the unreached once, then their secondary contact, and completes', async () => {
    // A window around now in UTC (crossing midnight when now is late), so the test never waits for one.
    const hour = new Date().getUTCHours();
    const at = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    const created = await platform.request('POST', '/user/campaigns', {
      token: owner.token,
      body: {
        name: 'Autumn', assistant_id: assistantId, timezone: 'UTC', allowed_hours_start_time: at(hour - 1), allowed_hours_end_time: at(hour + 2),
        max_calls_in_parallel: 2, max_retries: 1, retry_interval: 10,
      },
    });
    expect(created.status, created.text).toBe(201);
    const campaignId = created.body.data.id as number;
    // Dialed in this order: the two long calls (people talk for about 19 s on the local speech stack) first.
    const leads: { phone: string; contact?: string }[] = [
      { phone: '+14155550110' },
      { phone: '+14155550111' },
      { phone: '+14155550181', contact: '+14155550191' },
      { phone: '+14155550180' },
      { phone: '+14155550185' },
      { phone: '+14155550190' },
      { phone: '+14155550196' },
      { phone: '+14155550198' },
    ];
    for (const lead of leads) {
      const response = await platform.request('POST', '/user/lead', {
        token: owner.token,
        body: { campaign_id: campaignId, phone_number: lead.phone, ...(lead.contact ? { secondary_contacts: [{ phone_number: lead.contact }] } : {}) },
      });
      expect(response.status, response.text).toBe(200);
    }

    // Started as update-status starts it, with a ring of 3 s instead of 30 s so the unanswered number gives up soon.
    await knex()('campaigns').where({ id: campaignId }).update({ status: 'in-progress' });
    const handle = await platform.temporal.client.workflow.start<typeof campaignWorkflow>(workflowTypes.campaign, {
      taskQueue: platform.temporal.taskQueue,
      workflowId: workflowIds.campaign(campaignId),
      args: [{ campaignId, callTiming: { ringTimeoutSeconds: 3 } } satisfies CampaignInput],
      typedSearchAttributes: [
        { key: searchAttributes.userId, value: owner.id },
        { key: searchAttributes.campaignId, value: campaignId },
        { key: searchAttributes.assistantId, value: assistantId },
      ],
    });
    expect(await handle.result()).toEqual({ reason: 'completed' });

    expect((await knex()('campaigns').where({ id: campaignId }).first()).status).toBe('completed');
    const rows: { id: number; phoneNumber: string; status: string; attempts: number }[] = await knex()('leads').where({ campaignId }).orderBy('id');
    const byPhone = new Map(rows.map((row) => [row.phoneNumber, row]));
    const expected: [string, string, number][] = [
      ['+14155550110', 'completed', 1],
      ['+14155550111', 'completed', 1],
      // Busy twice (max_retries 1), then its secondary contact: a message box, which completes it.
      ['+14155550181', 'reached-max-retries', 2],
      ['+14155550191', 'completed', 1],
      ['+14155550180', 'reached-max-retries', 2],
      ['+14155550185', 'reached-max-retries', 2],
      // A message box answered: without retry_on_voicemail, the lead is done.
      ['+14155550190', 'completed', 1],
      ['+14155550196', 'reached-max-retries', 2],
      // Answered, and hung up without a word: answered is reached.
      ['+14155550198', 'completed', 1],
    ];
    expect(expected.map(([phone]) => [phone, byPhone.get(phone)?.status, byPhone.get(phone)?.attempts])).toEqual(expected);

    const calls: { leadId: number; status: string; createdAt: Date; endedAt: Date | null; campaignId: number }[] = await knex()('calls')
      .where({ userId: owner.id }).orderBy('id').select('leadId', 'status', 'createdAt', 'endedAt', 'campaignId');
    // One call per attempt, each ended, each of the campaign and its lead.
    expect(calls).toHaveLength(rows.reduce((sum, row) => sum + row.attempts, 0));
    for (const row of rows) expect(calls.filter((call) => Number(call.leadId) === Number(row.id))).toHaveLength(row.attempts);
    expect(calls.every((call) => call.endedAt !== null && Number(call.campaignId) === campaignId)).toBe(true);
    const statusOf = (phone: string) => calls.filter((call) => Number(call.leadId) === Number(byPhone.get(phone)?.id)).map((call) => call.status);
    expect(statusOf('+14155550180')).toEqual(['busy', 'busy']);
    expect(statusOf('+14155550185')).toEqual(['no-answer', 'no-answer']);
    expect(statusOf('+14155550196')).toEqual(['failed', 'failed']);
    expect(statusOf('+14155550190')).toEqual(['ended_by_assistant']);
    expect(statusOf('+14155550181')).toEqual(['busy', 'busy']);
    // The contact is called only once its lead has had all its calls.
    const contactCall = calls.find((call) => Number(call.leadId) === Number(byPhone.get('+14155550191')?.id));
    const mainEnds = calls.filter((call) => Number(call.leadId) === Number(byPhone.get('+14155550181')?.id)).map((call) => new Date(call.endedAt as Date).getTime());
    expect(new Date(contactCall?.createdAt as Date).getTime()).toBeGreaterThanOrEqual(Math.max(...mainEnds));
    // A call holds its slot from its record's creation until its end.
    const most = mostAtOnce(calls.map((call) => ({ from: new Date(call.createdAt).getTime(), to: new Date(call.endedAt as Date).getTime() })));
    expect(most).toBe(2);
  }, 120_000);
});
