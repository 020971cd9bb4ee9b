import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { subscriptionSignals, workflowTypes } from '../../src/temporal/shared.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

describe('owned numbers: list, rename, release', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ worker: true, env: { SUBSCRIPTION_PERIOD: '2s', REGION: 'eu1' } });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const digits = () => String(Math.floor(Math.random() * 9_000_000) + 1_000_000);
  /** A number held without buying it (SIP trunks and caller IDs are not bought; a seeded `normal` one stands for a bought one). */
  const seed = async (user: TestUser, fields: Record<string, unknown>) => {
    const [row] = await knex()('phone_numbers').insert({ userId: user.id, phoneNumber: `+1415${digits()}`, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active', ...fields }).returning('id');
    return (row as { id: number }).id;
  };
  const buy = async (user: TestUser) => {
    await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_visa' } });
    const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: user.token });
    const bought = await platform.request<{ data: { id: number; phone_number: string } }>('POST', '/user/phone-numbers/purchase', { token: user.token, body: { phone_number: offers.body.data[0]!.phone_number } });
    expect(bought.status).toBe(201);
    return bought.body.data;
  };

  it('lists what the caller holds in the contract shape, and the SMS numbers as a bare array', async () => {
    const user = await createTestUser(knex());
    const active = await seed(user, { nickname: 'Sales' });
    const pastDue = await seed(user, { status: 'past_due', smsCapable: true });
    const sip = await seed(user, { type: 'sip', smsCapable: false });
    const callerId = await seed(user, { type: 'caller_id', smsCapable: false });
    await seed(user, { status: 'released' });
    await seed(user, { status: 'failed' });
    await seed(await createTestUser(knex()), {});
    const all = await platform.request<{ data: Record<string, unknown>[] }>('GET', '/user/phone-numbers/all', { token: user.token });
    expect(all.status).toBe(200);
    expect(all.body.data.map((number) => [number.id, number.type, number.type_label, number.has_active_subscription])).toEqual([
      [active, 'normal', 'Dedicated Number', true],
      [pastDue, 'normal', 'Dedicated Number', false],
      [sip, 'sip', 'SIP Trunk', true],
      [callerId, 'caller_id', 'Caller ID', true],
    ]);
    expect(all.body.data[0]).toEqual({
      id: active, phone_number: expect.stringMatching(/^\+1415\d{7}$/), nickname: 'Sales', country_code: 'US', type: 'normal', type_label: 'Dedicated Number',
      sms_capable: true, region: 'eu1', has_active_subscription: true, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/),
    });
    const legacy = await platform.request<Record<string, unknown>[]>('GET', '/user/phone-numbers', { token: user.token });
    expect(legacy.body).toEqual([{ id: active, phone_number: expect.any(String), nickname: 'Sales', country_code: 'US', sms_capable: true }]);
  });

  it('renames a number, clears the name with null or "", and answers 404 for another user\'s number', async () => {
    const user = await createTestUser(knex());
    const id = await seed(user, {});
    const renamed = await platform.request('PUT', `/user/phone-numbers/${id}`, { token: user.token, body: { nickname: 'Front desk' } });
    expect(renamed).toMatchObject({ status: 200, body: { message: 'Phone number updated successfully.', data: { id, nickname: 'Front desk', country_code: 'US', type: 'normal' } } });
    for (const cleared of [null, '']) {
      await platform.request('PUT', `/user/phone-numbers/${id}`, { token: user.token, body: { nickname: 'again' } });
      expect((await platform.request('PUT', `/user/phone-numbers/${id}`, { token: user.token, body: { nickname: cleared } })).body).toMatchObject({ data: { nickname: null } });
    }
    const tooLong = await platform.request<{ errors: Record<string, string[]> }>('PUT', `/user/phone-numbers/${id}`, { token: user.token, body: { nickname: 'x'.repeat(51) } });
    expect(tooLong.status).toBe(422);
    expect(Object.keys(tooLong.body.errors)).toEqual(['nickname']);
    const stranger = await createTestUser(knex());
    expect(await platform.request('PUT', `/user/phone-numbers/${id}`, { token: stranger.token, body: { nickname: 'mine' } })).toMatchObject({ status: 404, body: { error: 'Phone number not found.' } });
    expect(await platform.request('DELETE', `/user/phone-numbers/${id}`, { token: stranger.token })).toMatchObject({ status: 404, body: { error: 'Phone number not found.' } });
  });

  it('deletes a SIP trunk or caller ID at once, and the assistants on it lose it', async () => {
    const user = await createTestUser(knex());
    const sip = await seed(user, { type: 'sip' });
    const [assistant] = await knex()('assistants').insert({ userId: user.id, uuid: crypto.randomUUID(), name: 'On SIP', type: 'inbound', phoneNumberId: sip }).returning('id');
    expect(await platform.request('DELETE', `/user/phone-numbers/${sip}`, { token: user.token })).toMatchObject({ status: 200, body: { message: 'Phone number deleted successfully.' } });
    expect(await knex()('phone_numbers').where({ id: sip })).toEqual([]);
    expect(await knex()('assistants').where({ id: (assistant as { id: number }).id }).first()).toMatchObject({ phoneNumberId: null });
  });

  it('releases a bought number when its paid period ends, not before, and only once', async () => {
    const user = await createTestUser(knex());
    const number = await buy(user);
    const released = await platform.request('DELETE', `/user/phone-numbers/${number.id}`, { token: user.token });
    expect(released).toMatchObject({ status: 200, body: { message: 'Phone number released successfully. It will be removed at the end of the billing period.' } });
    expect(await platform.request('DELETE', `/user/phone-numbers/${number.id}`, { token: user.token })).toMatchObject({ status: 400, body: { error: 'Phone number is already scheduled for release.' } });
    // Still held until its period ends, then given back to the carrier and gone from the list, unrenewed.
    expect(await knex()('phone_numbers').where({ id: number.id }).first()).toMatchObject({ status: 'active' });
    await expect.poll(async () => (await knex()('phone_numbers').where({ id: number.id }).first() as { status: string }).status, { timeout: 10_000, interval: 200 }).toBe('released');
    expect(await knex()('sandbox_phone_numbers').where({ phoneNumber: number.phone_number }).whereNull('released_at')).toEqual([]);
    expect(await knex()('phone_number_charges').where({ phoneNumberId: number.id })).toHaveLength(1);
    const all = await platform.request<{ data: { id: number }[] }>('GET', '/user/phone-numbers/all', { token: user.token });
    expect(all.body.data.map((entry) => entry.id)).not.toContain(number.id);
  });

  it('tells the subscriptions of past-due numbers, and only those, when the owner picks a new default card', async () => {
    const user = await createTestUser(knex());
    await platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_visa' } });
    // Two subscriptions waiting out a paid period that ends in an hour; the row says whether a renewal failed.
    const periodEnd = new Date(Date.now() + 3600_000);
    const pastDue = await seed(user, { status: 'past_due', period: 1, currentPeriodEnd: periodEnd });
    const active = await seed(user, { period: 1, currentPeriodEnd: periodEnd });
    const handles = await Promise.all([pastDue, active].map((phoneNumberId) => platform.temporal.client.workflow.start(workflowTypes.phoneNumberSubscription, {
      taskQueue: platform.temporal.taskQueue,
      workflowId: workflowIds.phoneNumber(phoneNumberId),
      args: [{ phoneNumberId, purchase: false, retryDelaysMs: [3600_000] }],
    })));
    onTestFinished(() => Promise.all(handles.map((handle) => handle.terminate())).then(() => undefined));
    // Temporal writes a signal that arrives during a workflow task to the history only when that task ends: both
    // workflows must be asleep until their period ends before the history can say which one was told.
    const asleep = async (handle: (typeof handles)[number]) => ((await handle.fetchHistory()).events ?? []).some((event) => event.timerStartedEventAttributes);
    await expect.poll(async () => (await Promise.all(handles.map(asleep))).every(Boolean), { timeout: 10_000, interval: 100 }).toBe(true);

    const card = await platform.request<{ data: { id: string; is_default: boolean } }>('POST', '/user/payment-methods', { token: user.token, body: { payment_method: 'pm_card_mastercard' } });
    expect(card.body.data.is_default).toBe(false);
    expect((await platform.request('POST', `/user/payment-methods/${card.body.data.id}/default`, { token: user.token })).status).toBe(200);
    const told = async (handle: (typeof handles)[number]) => {
      const { events } = await handle.fetchHistory();
      return (events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes?.signalName === subscriptionSignals.paymentMethodUpdated).length;
    };
    expect(await told(handles[0]!)).toBe(1);
    expect(await told(handles[1]!)).toBe(0);
  });
});
