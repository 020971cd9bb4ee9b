import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/**
 * Starting and stopping campaigns (anchor §7.3). No worker runs here: a start leaves the campaign's workflow
 * waiting for one, which is enough to see that it was started, with what, and what it was told.
 */
describe('POST /user/campaigns/update-status', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const campaignOf = async (options: { balanceUsd?: number; leads?: number } = {}) => {
    const user = await createTestUser(knex(), { balanceUsd: options.balanceUsd ?? 10 });
    const assistant = await createTestAssistant(platform, user);
    const campaign = (await platform.request('POST', '/user/campaigns', { token: user.token, body: { name: 'Spring', assistant_id: assistant.id } })).body.data;
    for (let i = 0; i < (options.leads ?? 1); i++) {
      await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: campaign.id, phone_number: `+1415555010${i}` } });
    }
    return { user, assistantId: assistant.id, campaignId: campaign.id as number };
  };
  const update = (user: TestUser, body: Record<string, unknown>) => platform.request('POST', '/user/campaigns/update-status', { token: user.token, body });
  const status = async (campaignId: number) => (await knex()('campaigns').where({ id: campaignId }).first()).status;
  const signalNames = async (campaignId: number) => ((await platform.temporal.client.workflow.getHandle(workflowIds.campaign(campaignId)).fetchHistory()).events ?? [])
    .map((event) => event.workflowExecutionSignaledEventAttributes?.signalName).filter((name) => name);

  it('starts a campaign: in-progress, its workflow campaign-<id> started with UserId, CampaignId and AssistantId', async () => {
    const { user, assistantId, campaignId } = await campaignOf();
    const started = await update(user, { campaign_id: campaignId, action: 'start' });
    expect(started).toMatchObject({ status: 200, body: { message: 'Campaign started successfully.', success: true, data: { campaign_id: campaignId, status: 'in-progress' } } });
    expect(await status(campaignId)).toBe('in-progress');
    const described = await platform.temporal.client.workflow.getHandle(workflowIds.campaign(campaignId)).describe();
    expect(described.status.name).toBe('RUNNING');
    expect(described.type).toBe('campaignWorkflow');
    expect(described.typedSearchAttributes.get(searchAttributes.userId)).toBe(user.id);
    expect(described.typedSearchAttributes.get(searchAttributes.campaignId)).toBe(campaignId);
    expect(described.typedSearchAttributes.get(searchAttributes.assistantId)).toBe(assistantId);

    // Started again while it runs: the same run is told to go on, not a second one started.
    expect(await update(user, { campaign_id: campaignId, action: 'start' })).toMatchObject({ status: 200 });
    const again = await platform.temporal.client.workflow.getHandle(workflowIds.campaign(campaignId)).describe();
    expect(again.runId).toBe(described.runId);
    // A running campaign hears of new leads and new settings.
    expect(await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: campaignId, phone_number: '+14155550177' } })).toMatchObject({ status: 200 });
    expect(await platform.request('PUT', `/user/campaigns/${campaignId}`, { token: user.token, body: { max_calls_in_parallel: 1 } })).toMatchObject({ status: 200 });

    const stopped = await update(user, { campaign_id: campaignId, action: 'stop' });
    expect(stopped).toMatchObject({ status: 200, body: { message: 'Campaign stopped successfully.', success: true, data: { campaign_id: campaignId, status: 'stopped' } } });
    expect(await status(campaignId)).toBe('stopped');
    expect(await signalNames(campaignId)).toEqual(['resume', 'resume', 'leadsAdded', 'settingsChanged', 'stop']);
  });

  it('answers the texts of §7.3: invalid action, not found, not yours, insufficient balance with data; and needs leads', async () => {
    const { user, campaignId } = await campaignOf();
    expect(await update(user, { campaign_id: campaignId, action: 'pause' })).toMatchObject({
      status: 400, body: { message: "Invalid action. Must be either 'start' or 'stop'.", success: false },
    });
    expect(await update(user, { campaign_id: 999_999_999, action: 'start' })).toMatchObject({ status: 404, body: { message: 'Campaign not found.', success: false } });
    const stranger = await createTestUser(knex(), { balanceUsd: 10 });
    expect(await update(stranger, { campaign_id: campaignId, action: 'stop' })).toMatchObject({
      status: 403, body: { message: 'Access denied - Campaign does not belong to authenticated user.', success: false },
    });
    expect(await status(campaignId)).toBe('draft');

    const poor = await campaignOf({ balanceUsd: 0 });
    expect(await update(poor.user, { campaign_id: poor.campaignId, action: 'start' })).toMatchObject({
      status: 400,
      body: { message: 'Insufficient balance to start the campaign. Please top up your account.', success: false, data: { campaign_id: poor.campaignId, status: 'draft' } },
    });
    const empty = await campaignOf({ leads: 0 });
    expect(await update(empty.user, { campaign_id: empty.campaignId, action: 'start' })).toMatchObject({
      status: 400, body: { message: 'The campaign has no leads left to call. Add leads before starting it.', success: false },
    });
    for (const refused of [poor.campaignId, empty.campaignId]) {
      expect(await status(refused)).toBe('draft');
      await expect(platform.temporal.client.workflow.getHandle(workflowIds.campaign(refused)).describe()).rejects.toThrow();
    }
    expect(await update(user, { campaign_id: campaignId })).toMatchObject({ status: 422 });
  });

  it('stops a running campaign before deleting it', async () => {
    const { user, campaignId } = await campaignOf();
    await update(user, { campaign_id: campaignId, action: 'start' });
    expect(await platform.request('DELETE', `/user/campaigns/${campaignId}`, { token: user.token })).toMatchObject({ status: 200 });
    expect(await signalNames(campaignId)).toEqual(['resume', 'stop']);
    expect(await knex()('campaigns').where({ id: campaignId }).first()).toBeUndefined();
  });
});
