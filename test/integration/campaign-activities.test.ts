import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCampaignActivities } from '../../activities/campaigns.ts';
import type { PlacedLeadCall } from '../../src/temporal/shared.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

/** The campaign workflow's activities against the database: what they write, and that repeating them writes nothing more. */
describe('campaign activities', () => {
  let platform: TestPlatform;
  let activities: ReturnType<typeof createCampaignActivities>;
  beforeAll(async () => {
    platform = await startTestPlatform();
    // Retry intervals in seconds, as CAMPAIGN_RETRY_UNIT=second counts them; no media process to count lines of.
    activities = createCampaignActivities({
      knex: platform.database.knex, config: { campaignRetryUnitMs: 1000, campaignInboundReservePercent: 0 }, mediaLines: () => Promise.resolve(null),
    });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const digits = () => String(Math.floor(Math.random() * 9_000_000) + 1_000_000);

  /** A running campaign with two US numbers to rotate, and its leads (the last one with a secondary contact). */
  async function running(phones: string[], fields: Record<string, unknown> = {}) {
    const user = await createTestUser(knex(), { balanceUsd: 10 });
    const assistant = await createTestAssistant(platform, user);
    const numbers = [];
    for (let i = 0; i < 2; i++) {
      const [row] = await knex()('phone_numbers').insert({ userId: user.id, phoneNumber: `+1415${digits()}`, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active' }).returning(['id', 'phone_number']);
      numbers.push(row as { id: number; phoneNumber: string });
    }
    const created = await platform.request('POST', '/user/campaigns', {
      token: user.token, body: { name: 'Test', assistant_id: assistant.id, timezone: 'UTC', max_retries: 1, retry_interval: 10, phone_number_ids: numbers.map((n) => n.id), ...fields },
    });
    expect(created.status, created.text).toBe(201);
    const campaignId = created.body.data.id as number;
    for (const [index, phone] of phones.entries()) {
      const last = index === phones.length - 1;
      await platform.request('POST', '/user/lead', { token: user.token, body: { campaign_id: campaignId, phone_number: phone, ...(last ? { secondary_contacts: [{ phone_number: '+14155550122' }] } : {}) } });
    }
    await knex()('campaigns').where({ id: campaignId }).update({ status: 'in-progress' });
    const leads: { id: number; phoneNumber: string }[] = await knex()('leads').where({ campaignId }).whereNull('primaryLeadId').orderBy('id');
    return { user, campaignId, leads, numbers };
  }
  const lead = async (id: number) => knex()('leads').where({ id }).first();
  const placeOne = async (campaignId: number, leadId: number, attempts: number) =>
    (await activities.placeLeadCalls({ campaignId, leads: [{ leadId, attempts }] })).outcomes[0];
  const settle = async (campaignId: number, callId: number) => (await activities.campaignRound({ campaignId, following: [], settle: [callId] })).settled;
  const endCall = (callId: number, status: string, answeredBy: string | null = null) => knex()('calls').where({ id: callId }).update({ status, answeredBy, endedAt: new Date() });

  it('places one call per attempt however often it is asked, from one of the campaign numbers; no slot writes nothing', async () => {
    const { user, campaignId, leads, numbers } = await running(['+14155550101', '+14155550102']);
    const round = await activities.campaignRound({ campaignId, following: [] });
    expect(round).toMatchObject({ campaign: { status: 'in-progress', maxCallsInParallel: 3 }, windowOpensAt: null, open: 2, nextDueAt: null });
    expect(round.due).toEqual(leads.map((l) => ({ leadId: l.id, attempts: 0 })));

    const first = await placeOne(campaignId, leads[0]!.id, 0) as PlacedLeadCall;
    expect(first).toMatchObject({ outcome: 'placed', userId: user.id });
    // Asked again (a retried activity whose answer was lost): the same call, nothing more.
    expect(await placeOne(campaignId, leads[0]!.id, 0)).toEqual(first);
    const callId = (first as { callId: number }).callId;
    expect(await lead(leads[0]!.id)).toMatchObject({ status: 'processing', attempts: 1, lastCallId: callId });
    const calls = await knex()('calls').where({ leadId: leads[0]!.id });
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ campaignId, leadId: leads[0]!.id, clientPhoneNumber: '+14155550101', status: 'initiated', type: 'outbound' });
    expect(numbers.map((n) => n.phoneNumber)).toContain(calls[0].assistantPhoneNumber);
    // A stale round's view of the lead places nothing.
    expect(await placeOne(campaignId, leads[0]!.id, 1)).toMatchObject({ outcome: 'skipped' });

    const planId = `one-line-${user.id}`;
    await knex()('plans').insert({ id: planId, name: 'One line', maxCallsInParallel: 1 });
    await knex()('users').where({ id: user.id }).update({ planId });
    // A batch stops at the first lead without a slot: the leads after it are not tried.
    const batch = [{ leadId: leads[1]!.id, attempts: 0 }, { leadId: leads[0]!.id, attempts: 1 }];
    expect(await activities.placeLeadCalls({ campaignId, leads: batch })).toEqual({ outcomes: [{ outcome: 'no-slot' }] });
    expect(await lead(leads[1]!.id)).toMatchObject({ status: 'created', attempts: 0, lastCallId: null });
    expect(await knex()('calls').where({ leadId: leads[1]!.id })).toHaveLength(0);
  });

  it('settles by the retry rules once per call: rescheduled, then out of retries with the contact due; an answered call completes', async () => {
    const { campaignId, leads } = await running(['+14155550103', '+14155550181']);
    const place = async (leadId: number, attempts: number) => (await placeOne(campaignId, leadId, attempts) as { callId: number }).callId;
    const person = await place(leads[0]!.id, 0);
    await endCall(person, 'ended_by_customer', 'human');
    expect(await settle(campaignId, person)).toEqual([{ leadId: leads[0]!.id, status: 'completed', reason: 'ended_by_customer' }]);
    expect(await settle(campaignId, person)).toEqual([]);

    const busy = await place(leads[1]!.id, 0);
    await endCall(busy, 'busy');
    const before = Date.now();
    expect(await settle(campaignId, busy)).toMatchObject([{ status: 'rescheduled', reason: 'busy' }]);
    const rescheduled = await lead(leads[1]!.id);
    expect(rescheduled).toMatchObject({ status: 'rescheduled', attempts: 1 });
    // retry_interval 10, in seconds here, after the call's end.
    expect(new Date(rescheduled.nextAttemptAt).getTime()).toBeGreaterThanOrEqual(before + 9000);
    const waiting = await activities.campaignRound({ campaignId, following: [] });
    expect(waiting).toMatchObject({ due: [], open: 1, nextDueAt: new Date(rescheduled.nextAttemptAt).toISOString() });

    await knex()('leads').where({ id: leads[1]!.id }).update({ nextAttemptAt: new Date(Date.now() - 1000) });
    const again = await place(leads[1]!.id, 1);
    await endCall(again, 'busy');
    expect(await settle(campaignId, again)).toMatchObject([{ status: 'reached-max-retries' }]);
    const contact = await knex()('leads').where({ primaryLeadId: leads[1]!.id }).first();
    expect(contact).toMatchObject({ status: 'scheduled', attempts: 0 });
    expect((await activities.campaignRound({ campaignId, following: [] })).due).toEqual([{ leadId: contact.id, attempts: 0 }]);
  });

  it('outside the window: no due leads, and when it opens; a number in a country the account does not call is never dialed', async () => {
    const hour = new Date().getUTCHours();
    const at = (h: number) => `${String((h + 24) % 24).padStart(2, '0')}:00`;
    const closed = await running(['+14155550104'], { allowed_hours_start_time: at(hour + 2), allowed_hours_end_time: at(hour + 3) });
    const round = await activities.campaignRound({ campaignId: closed.campaignId, following: [] });
    expect(round).toMatchObject({ due: [], open: 1, windowNeverOpens: false });
    expect(new Date(round.windowOpensAt as string).getUTCHours()).toBe((hour + 2) % 24);

    const abroad = await running(['+442079460123']);
    expect(await placeOne(abroad.campaignId, abroad.leads[0]!.id, 0)).toMatchObject({ outcome: 'skipped' });
    expect(await lead(abroad.leads[0]!.id)).toMatchObject({ status: 'reached-max-retries', attempts: 0 });
    expect(await knex()('leads').where({ primaryLeadId: abroad.leads[0]!.id }).first()).toMatchObject({ status: 'scheduled' });
    // By lead: on PostgreSQL other test files insert calls naming campaign ids of their own invention.
    expect(await knex()('calls').where({ leadId: abroad.leads[0]!.id })).toHaveLength(0);
  });

  it("adopts the leads of calls its run does not follow: a live one takes a place, an ended or deleted one is settled", async () => {
    const { campaignId, leads } = await running(['+14155550105', '+14155550106', '+14155550107', '+14155550108'], { max_calls_in_parallel: 3 });
    const placed = await activities.placeLeadCalls({ campaignId, leads: leads.slice(0, 3).map((l) => ({ leadId: l.id, attempts: 0 })) });
    const [live, ended, deleted] = placed.outcomes.map((outcome) => (outcome as { callId: number }).callId) as [number, number, number];
    await endCall(ended, 'ended_by_customer', 'human');
    await knex()('calls').where({ id: deleted }).delete();
    // A run that follows none of them: the live call takes one of the 3 places.
    const round = await activities.campaignRound({ campaignId, following: [] });
    expect(round.due).toEqual([{ leadId: leads[3]!.id, attempts: 0 }]);
    expect(await lead(leads[0]!.id)).toMatchObject({ status: 'processing' });
    expect(await lead(leads[1]!.id)).toMatchObject({ status: 'completed' });
    expect(await lead(leads[2]!.id)).toMatchObject({ status: 'rescheduled', lastCallId: null });
    // The run that follows the live call counts it once.
    expect((await activities.campaignRound({ campaignId, following: [live] })).due).toHaveLength(1);
    // A followed call that ended half an hour ago without its workflow saying so is answered as overdue.
    expect((await activities.campaignRound({ campaignId, following: [live] })).overdue).toEqual([]);
    await knex()('calls').where({ id: live }).update({ status: 'ended_by_customer', endedAt: new Date(Date.now() - 31 * 60_000) });
    expect((await activities.campaignRound({ campaignId, following: [live] })).overdue).toEqual([live]);
  });

  it('leaves the inbound reserve of the account\'s lines free, and places no more calls than the media processes have lines', async () => {
    const phones = ['+14155550111', '+14155550112', '+14155550113', '+14155550114', '+14155550115'];
    const { user, campaignId, leads } = await running(phones, { max_calls_in_parallel: 5 });
    const planId = `five-lines-${user.id}`;
    await knex()('plans').insert({ id: planId, name: 'Five lines', maxCallsInParallel: 5 });
    await knex()('users').where({ id: user.id }).update({ planId });
    const due = leads.map((l) => ({ leadId: l.id, attempts: 0 }));
    let lines = 3;
    const reserving = createCampaignActivities({
      knex: knex(), config: { campaignRetryUnitMs: 1000, campaignInboundReservePercent: 20 }, mediaLines: () => Promise.resolve(lines),
    });
    // Three lines free in the media processes: three calls, then the fourth lead waits (not an attempt).
    const first = await reserving.placeLeadCalls({ campaignId, leads: due });
    expect(first.outcomes.map((o) => o.outcome)).toEqual(['placed', 'placed', 'placed', 'no-slot']);
    expect(await lead(leads[3]!.id)).toMatchObject({ status: 'created', attempts: 0 });
    // Lines enough: the fourth call takes the last of the 4 lines 20% of 5 leaves; the fifth waits for inbound's.
    lines = 10;
    const second = await reserving.placeLeadCalls({ campaignId, leads: due.slice(3) });
    expect(second.outcomes.map((o) => o.outcome)).toEqual(['placed', 'no-slot']);
    expect(await knex()('calls').whereIn('leadId', leads.map((l) => l.id)).whereNull('endedAt')).toHaveLength(4);
  });

  it('answers a batch run again with the calls its first run placed, though a gate closed since', async () => {
    const { campaignId, leads } = await running(['+14155550131', '+14155550132', '+14155550133']);
    const due = leads.map((l) => ({ leadId: l.id, attempts: 0 }));
    const first = await activities.placeLeadCalls({ campaignId, leads: due.slice(0, 2) });
    expect(first.outcomes.map((o) => o.outcome)).toEqual(['placed', 'placed']);
    // The run's answer lost with its worker; meanwhile the media processes' lines ran out. The re-run still
    // answers the two calls placed (their workflows must start), and places nothing more.
    const noLines = createCampaignActivities({
      knex: knex(), config: { campaignRetryUnitMs: 1000, campaignInboundReservePercent: 0 }, mediaLines: () => Promise.resolve(0),
    });
    const again = await noLines.placeLeadCalls({ campaignId, leads: due });
    expect(again.outcomes).toEqual([...first.outcomes, { outcome: 'no-slot' }]);
    // And when the campaign cannot dial at all any more (it was stopped): the placed calls, then the halt.
    await knex()('campaigns').where({ id: campaignId }).update({ status: 'stopped' });
    const stopped = await noLines.placeLeadCalls({ campaignId, leads: due });
    expect(stopped.outcomes).toEqual([...first.outcomes, { outcome: 'skipped', reason: 'the campaign is not running' }]);
    expect(await knex()('calls').whereIn('leadId', leads.map((l) => l.id))).toHaveLength(2);
  });
});
