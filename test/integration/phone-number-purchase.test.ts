import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { retryDelaysMs } from '../../src/billing/renewals.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

interface Offered {
  phone_number: string;
  phone_number_formatted: string;
  country_code: string;
  price: number;
  address_requirements: string;
  sms_capable: boolean;
}

describe('buying numbers on the sandbox carrier and sandbox payments', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    // A "month" of two seconds, so a renewal happens within the test.
    platform = await startTestPlatform({ worker: true, env: { SUBSCRIPTION_PERIOD: '2s' } });
  });
  afterAll(() => platform.close());

  const addCard = (user: TestUser, paymentMethod = 'pm_card_visa') => platform.request('POST', '/user/payment-methods', { token: user.token, body: { payment_method: paymentMethod } });
  const search = async (user: TestUser, query = 'country_code=US') => {
    const found = await platform.request<{ data: Offered[] }>('GET', `/user/phone-numbers/search?${query}`, { token: user.token });
    expect(found.status).toBe(200);
    return found.body.data;
  };
  const purchase = (user: TestUser, phoneNumber: string) => platform.request<{ message?: string; error?: string; data?: { id: number } }>('POST', '/user/phone-numbers/purchase', { token: user.token, body: { phone_number: phoneNumber } });
  const row = (id: number) => platform.database.knex('phone_numbers').where({ id }).first();

  it('offers valid local numbers with the digits asked for, a price and the address rule', async () => {
    const user = await createTestUser(platform.database.knex);
    const german = await search(user, 'country_code=de&contains=42');
    expect(german.length).toBeGreaterThan(5);
    for (const number of german) {
      expect(number).toMatchObject({ country_code: 'DE', price: 2.25, address_requirements: 'local', sms_capable: false, stripe_price_id: null });
      expect(number.phone_number).toMatch(/^\+49\d+$/);
      expect(number.phone_number.slice(3)).toContain('42');
    }
    expect(await search(user, 'country_code=ZZ')).toEqual([]);
    const bad = await platform.request('GET', '/user/phone-numbers/search?contains=12a', { token: user.token });
    expect(bad.status).toBe(422);
  });

  it('buys an offered number: provisioned, first month charged once, renewed by its workflow', async () => {
    const user = await createTestUser(platform.database.knex);
    expect((await addCard(user)).status).toBe(201);
    const [offer] = await search(user);
    const bought = await purchase(user, offer!.phone_number);
    expect(bought.status).toBe(201);
    expect(bought.body).toEqual({
      message: 'Phone number purchased successfully.',
      data: { id: expect.any(Number), phone_number: offer!.phone_number, country_code: 'US', type: 'normal', sms_capable: true },
    });
    const id = bought.body.data!.id;
    expect(await row(id)).toMatchObject({ status: 'active', period: 1, provider: 'sandbox', monthlyPriceMicros: expect.anything() });
    const carrier = await platform.database.knex('sandbox_phone_numbers').where({ phoneNumber: offer!.phone_number }).whereNull('released_at');
    expect(carrier).toHaveLength(1);
    // The next "month" is charged by the workflow, once per period.
    await expect.poll(async () => (await row(id)).period, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    const charges = await platform.database.knex('phone_number_charges').where({ phoneNumberId: id }).orderBy(['period', 'attempt']);
    expect(charges.slice(0, 2).map((charge: { period: number; status: string }) => [charge.period, charge.status])).toEqual([[1, 'succeeded'], [2, 'succeeded']]);
    const payments = await platform.database.knex('sandbox_payments').where('description', 'like', `%${offer!.phone_number}%`);
    expect(new Set(payments.map((payment: { idempotencyKey: string }) => payment.idempotencyKey)).size).toBe(payments.length);
    const workflow = await platform.temporal.client.workflow.getHandle(workflowIds.phoneNumber(id)).describe();
    expect(workflow.status.name).toBe('RUNNING');
  });

  it('takes a new user through the whole flow: card, search, buy, rename, assign, renewals seen in Temporal, release', async () => {
    const user = await createTestUser(platform.database.knex);
    expect((await addCard(user)).status).toBe(201);
    const [offer] = await search(user, 'country_code=US');
    const bought = await purchase(user, offer!.phone_number);
    expect(bought.status).toBe(201);
    const id = bought.body.data!.id;
    const renamed = await platform.request('PUT', `/user/phone-numbers/${id}`, { token: user.token, body: { nickname: 'Reception' } });
    expect(renamed).toMatchObject({ status: 200, body: { data: { nickname: 'Reception' } } });
    const assistant = await createTestAssistant(platform, user, { type: 'inbound', phone_number_id: id });
    const listed = await platform.request<{ data: { id: number; phone_number: string; nickname: string }[] }>('GET', '/user/phone-numbers/all', { token: user.token });
    expect(listed.body.data).toContainEqual(expect.objectContaining({ id, phone_number: offer!.phone_number, nickname: 'Reception' }));

    // What the Temporal UI shows: the account's subscription found by its UserId, renewing period after period.
    const client = platform.temporal.client;
    await expect.poll(async () => {
      const found: string[] = [];
      for await (const execution of client.workflow.list({ query: `UserId = ${user.id}` })) found.push(execution.workflowId);
      return found;
    }, { timeout: 10_000, interval: 200 }).toContain(workflowIds.phoneNumber(id));
    const handle = client.workflow.getHandle(workflowIds.phoneNumber(id));
    await expect.poll(async () => (await handle.query<{ status: string; period: number }>('subscription')).period, { timeout: 10_000, interval: 200 }).toBeGreaterThanOrEqual(2);
    expect(await handle.query('subscription')).toMatchObject({ status: 'active', releaseRequested: false });

    expect((await platform.request('DELETE', `/user/phone-numbers/${id}`, { token: user.token })).status).toBe(200);
    await expect.poll(async () => (await row(id)).status, { timeout: 10_000, interval: 200 }).toBe('released');
    expect(await platform.database.knex('assistants').where({ id: assistant.id }).first()).toMatchObject({ phoneNumberId: null });
    expect(await handle.result()).toEqual({ reason: 'requested' });
  });

  it('fails a renewal off-session on a card that asks for 3-D Secure, tries again on the schedule, then releases the number', async () => {
    const user = await createTestUser(platform.database.knex);
    await addCard(user);
    const [offer] = await search(user);
    const bought = await purchase(user, offer!.phone_number);
    expect(bought.status).toBe(201);
    const id = bought.body.data!.id;
    const card = await addCard(user, 'pm_card_authenticationRequired');
    expect((await platform.request('POST', `/user/payment-methods/${card.body.data.id}/default`, { token: user.token })).status).toBe(200);

    await expect.poll(async () => (await row(id)).status, { timeout: 15_000, interval: 200 }).toBe('released');
    expect(await row(id)).toMatchObject({ period: 1, statusReason: 'Released: the renewal was not paid.' });
    const renewals = await platform.database.knex('phone_number_charges').where({ phoneNumberId: id, period: 2 }).orderBy('attempt');
    expect(renewals.map((charge: { attempt: number; status: string; failureReason: string }) => [charge.attempt, charge.status, charge.failureReason])).toEqual(
      [0, 1, 2, 3].map((attempt) => [attempt, 'failed', 'authentication_required']),
    );
    // Each try waited its turn of the schedule (1, 3 and 5 "days" of a two-second month).
    const delays = retryDelaysMs({ ms: 2000 });
    for (let attempt = 1; attempt < renewals.length; attempt++) {
      expect(renewals[attempt].createdAt.getTime() - renewals[attempt - 1].createdAt.getTime()).toBeGreaterThanOrEqual(delays[attempt - 1]!);
    }
    const payments = await platform.database.knex('sandbox_payments').whereIn('id', renewals.map((charge: { paymentId: string }) => charge.paymentId));
    expect(payments.map((payment: { status: string }) => payment.status)).toEqual(['failed', 'failed', 'failed', 'failed']);
    expect(await platform.database.knex('sandbox_phone_numbers').where({ phoneNumber: offer!.phone_number }).whereNull('released_at')).toEqual([]);
  });

  it('answers every documented failure in the {error} shape, and leaves nothing charged or held', async () => {
    const user = await createTestUser(platform.database.knex);
    const [offer] = await search(user);
    expect(await purchase(user, '12345')).toMatchObject({ status: 422, body: { error: 'Unable to parse phone number. Please provide a valid E.164 format number.' } });
    expect(await purchase(user, '+14155550000')).toMatchObject({ status: 400, body: { error: 'This phone number is not available for purchase. Please search for available numbers first.' } });
    expect(await purchase(user, offer!.phone_number)).toMatchObject({ status: 402, body: { error: 'No payment method found. Please add a payment method to your account.' } });

    const declined = await createTestUser(platform.database.knex);
    await addCard(declined, 'pm_card_chargeDeclined');
    const [declinedOffer] = await search(declined);
    expect(await purchase(declined, declinedOffer!.phone_number)).toMatchObject({ status: 402, body: { error: 'Payment failed. Please update your payment method.' } });
    // Given back to the carrier, and free to be bought again.
    expect(await platform.database.knex('sandbox_phone_numbers').where({ phoneNumber: declinedOffer!.phone_number }).whereNull('released_at')).toEqual([]);
    expect(await platform.database.knex('phone_numbers').where({ phoneNumber: declinedOffer!.phone_number }).first()).toMatchObject({ status: 'failed' });

    await addCard(user);
    const [refusedOffer] = await search(user, 'country_code=US&contains=9999');
    const refused = await purchase(user, refusedOffer!.phone_number);
    expect(refused).toMatchObject({ status: 500, body: { error: 'Failed to purchase phone number from provider. Please contact support.' } });
    expect(await platform.database.knex('phone_number_charges').join('phone_numbers', 'phone_numbers.id', 'phone_number_charges.phone_number_id').where('phone_numbers.phone_number', refusedOffer!.phone_number)).toEqual([]);
  });

  it('lets exactly one of two users racing for a number have it', async () => {
    const [first, second] = await Promise.all([createTestUser(platform.database.knex), createTestUser(platform.database.knex)]);
    await Promise.all([addCard(first), addCard(second)]);
    const [offer] = await search(first);
    // The second user was shown the same number by a search of their own.
    await platform.database.knex('phone_number_offers').insert({ userId: second.id, phoneNumber: offer!.phone_number, countryCode: 'US', monthlyPriceMicros: 1_150_000, smsCapable: true, expiresAt: new Date(Date.now() + 60_000) });
    const answers = await Promise.all([purchase(first, offer!.phone_number), purchase(second, offer!.phone_number)]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 400]);
    expect(answers.find((answer) => answer.status === 400)?.body).toEqual({ error: 'This phone number is already in use.' });
    expect(await platform.database.knex('phone_numbers').where({ phoneNumber: offer!.phone_number })).toHaveLength(1);
  });
});
