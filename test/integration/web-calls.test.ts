import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/tokens.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { workflowTypes } from '../../src/temporal/shared.ts';
import { redeemWebCallToken } from '../../src/resources/web-calls/service.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { testClock } from '../support/clock.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

// A model is configured (calls need one) but never asked: creating a call makes no model request.
const withModel = { LLM_BASE_URL: 'http://127.0.0.1:9/v1', LLM_API_KEY: 'test', MEDIA_PUBLIC_URL: 'wss://voice.example.test:8443' };

const tokenOf = (websocketUrl: string) => new URL(websocketUrl).searchParams.get('token') ?? '';

describe('web calls', () => {
  const clock = testClock(new Date('2026-11-23T12:00:00.000Z'));
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: withModel, clock: clock.now });
  });
  afterAll(async () => {
    await platform.close();
  });

  const knex = () => platform.database.knex;

  async function ownerWithAssistant(balanceUsd = 1) {
    const owner = await createTestUser(knex(), { balanceUsd });
    const assistant = await createTestAssistant(platform, owner, { variables: { company: 'Acme', customer_name: 'there' } });
    return { owner, assistant };
  }

  it('creates an initiated web call with a single-use media URL, and starts its lifecycle', async () => {
    const { owner, assistant } = await ownerWithAssistant();
    const response = await platform.request('POST', '/user/web-calls', {
      token: owner.token,
      body: { assistant_id: assistant.id, variables: { customer_name: 'Ada' } },
    });

    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      message: 'Web call created successfully',
      data: { call_id: expect.any(Number), status: 'initiated', websocket_url: expect.stringMatching(/^wss:\/\/voice\.example\.test:8443\/media\/web-call\?token=[A-Za-z0-9]{48}$/) },
    });
    const callId = response.body.data.call_id as number;
    const row = await knex()('calls').where({ id: callId }).first();
    expect(row).toMatchObject({
      userId: owner.id,
      assistantId: assistant.id,
      assistantName: 'Test Assistant',
      type: 'web',
      status: 'initiated',
      variables: { company: 'Acme', customer_name: 'Ada' },
      mediaTokenHash: sha256Hex(tokenOf(response.body.data.websocket_url)),
      mediaTokenExpiresAt: new Date('2026-11-23T12:01:00.000Z'),
    });
    const workflow = await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).describe();
    expect(workflow.type).toBe(workflowTypes.callLifecycle);
    expect(workflow.typedSearchAttributes.get(searchAttributes.userId)).toBe(owner.id);
    expect(workflow.typedSearchAttributes.get(searchAttributes.assistantId)).toBe(assistant.id);
  });

  it('takes the assistant id as its digits', async () => {
    const { owner, assistant } = await ownerWithAssistant();
    const response = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: String(assistant.id) } });
    expect(response.status).toBe(201);
  });

  it("answers 404 for another user's assistant, 422 for a bad body, 401 without a credential", async () => {
    const { assistant } = await ownerWithAssistant();
    const stranger = await createTestUser(knex(), { balanceUsd: 1 });
    const foreign = await platform.request('POST', '/user/web-calls', { token: stranger.token, body: { assistant_id: assistant.id } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({ message: 'Assistant not found or does not belong to the authenticated user' });

    const missing = await platform.request('POST', '/user/web-calls', { token: stranger.token, body: { variables: [] } });
    expect(missing.status).toBe(422);
    expect(missing.body).toMatchObject({ errors: { assistant_id: ['The assistant id field is required.'], variables: [expect.any(String)] } });

    expect((await platform.request('POST', '/user/web-calls', { body: { assistant_id: assistant.id } })).status).toBe(401);
  });

  it('refuses a call the balance cannot pay a minute of with 422, creating nothing', async () => {
    const { owner, assistant } = await ownerWithAssistant(0.05);
    const before = await knex()('calls').where({ userId: owner.id }).count({ count: '*' });
    const response = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ message: 'Insufficient balance to make call. Please top up your account.' });
    expect(await knex()('calls').where({ userId: owner.id }).count({ count: '*' })).toEqual(before);
  });

  it('creates a call for the widget by the assistant UUID, answering errors as the conversation routes do', async () => {
    const { owner, assistant } = await ownerWithAssistant();
    const response = await platform.request('POST', '/web-calls', { body: { assistant_id: assistant.uuid, variables: { customer_name: 'Bo' } } });
    expect(response.status).toBe(201);
    expect(await knex()('calls').where({ id: response.body.data.call_id }).first()).toMatchObject({ userId: owner.id, variables: { company: 'Acme', customer_name: 'Bo' } });

    const unknown = await platform.request('POST', '/web-calls', { body: { assistant_id: '00000000-0000-4000-8000-000000000000' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ status: false, error: 'Assistant not found' });
    const notUuid = await platform.request('POST', '/web-calls', { body: { assistant_id: String(assistant.id) } });
    expect(notUuid.body).toEqual({ status: false, error: 'Assistant not found' });
    const invalid = await platform.request('POST', '/web-calls', { body: {} });
    expect(invalid.status).toBe(422);
    expect(invalid.body).toEqual({ status: false, error: 'assistant_id is required' });

    const poor = await ownerWithAssistant(0);
    const refused = await platform.request('POST', '/web-calls', { body: { assistant_id: poor.assistant.uuid } });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({ status: false, error: 'Insufficient balance to make call. Please top up your account.' });
  });

  describe("the plan's limit of calls at once", () => {
    async function ownerOnPlan(maxCallsInParallel: number) {
      const { owner, assistant } = await ownerWithAssistant(5);
      const planId = `lines-${owner.id}`;
      await knex()('plans').insert({ id: planId, name: `${maxCallsInParallel} lines`, maxCallsInParallel });
      await knex()('users').where({ id: owner.id }).update({ planId });
      return { owner, assistant };
    }
    const liveCount = async (userId: number) => Number((await knex()('calls').where({ userId }).whereNull('endedAt').count<{ count: string }[]>('id as count'))[0]!.count);

    it('counts phone calls too, and answers 429 with Retry-After in the shape of each route', async () => {
      const { owner, assistant } = await ownerOnPlan(2);
      const [phone] = await knex()('calls').insert({ userId: owner.id, assistantName: 'On the phone', type: 'outbound', status: 'in-progress' }).returning('id');
      expect((await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } })).status).toBe(201);

      const bearer = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
      expect(bearer.status).toBe(429);
      expect(bearer.body).toEqual({ message: 'You have 2 calls in progress, the most your plan allows at once. Please try again when one has ended.' });
      expect(bearer.headers.get('retry-after')).toBe('30');
      const widget = await platform.request('POST', '/web-calls', { body: { assistant_id: assistant.uuid } });
      expect(widget.status).toBe(429);
      expect(widget.body).toEqual({ status: false, error: 'This assistant is taking as many calls as it can at the moment. Please try again shortly.' });
      expect(widget.headers.get('retry-after')).toBe('30');
      expect(await liveCount(owner.id)).toBe(2);

      // The phone call ends: its slot is free again.
      await knex()('calls').where({ id: phone.id }).update({ status: 'completed', endedAt: clock.now() });
      expect((await platform.request('POST', '/web-calls', { body: { assistant_id: assistant.uuid } })).status).toBe(201);
    });

    it('admits calls started at the same moment one after another, up to the limit', async () => {
      const { owner, assistant } = await ownerOnPlan(3);
      const statuses = await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 === 0
        ? platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } })
        : platform.request('POST', '/web-calls', { body: { assistant_id: assistant.uuid } })).then((response) => response.status)));
      expect(statuses.filter((status) => status === 201)).toHaveLength(3);
      expect(statuses.filter((status) => status === 429)).toHaveLength(5);
      expect(await liveCount(owner.id)).toBe(3);
    });
  });

  it('refuses a call with 422 when the calls in progress hold what the balance would pay for it', async () => {
    const { owner, assistant } = await ownerWithAssistant(1);
    // A live call may still spend 0.95 USD of the 1 USD: not a minute's 0.10 USD left.
    await knex()('calls').insert({ userId: owner.id, assistantName: 'On the phone', type: 'outbound', status: 'in-progress', maxSeconds: 570, reservedMicros: 950_000 });
    const response = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({ message: 'Insufficient balance to make call. Please top up your account.' });
  });

  it('lets any site embedding the widget create a public web call (CORS)', async () => {
    const response = await fetch(`${platform.baseUrl}/api/web-calls`, {
      method: 'OPTIONS',
      headers: { origin: 'https://shop.example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
  });

  describe('redeemWebCallToken', () => {
    async function createdCall() {
      const { owner, assistant } = await ownerWithAssistant();
      const response = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
      return { callId: response.body.data.call_id as number, token: tokenOf(response.body.data.websocket_url) };
    }

    it('opens the call once: a second use, like an unknown or malformed token, opens nothing', async () => {
      const { callId, token } = await createdCall();
      const now = clock.now();
      const [first, second] = await Promise.all([redeemWebCallToken(knex(), token, now), redeemWebCallToken(knex(), token, now)]);
      expect([first, second].filter(Boolean)).toEqual([{ callId }]);
      expect(await redeemWebCallToken(knex(), token, now)).toBeUndefined();
      expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ mediaTokenHash: null, mediaTokenExpiresAt: null });
      expect(await redeemWebCallToken(knex(), 'A'.repeat(48), now)).toBeUndefined();
      expect(await redeemWebCallToken(knex(), "' or 1=1 --", now)).toBeUndefined();
    });

    it('opens nothing once its 60 seconds have passed', async () => {
      const { callId, token } = await createdCall();
      const issued = clock.now().getTime();
      expect(await redeemWebCallToken(knex(), token, new Date(issued + 60_000))).toBeUndefined();
      expect(await redeemWebCallToken(knex(), token, new Date(issued + 59_999))).toEqual({ callId });
    });
  });
});

describe('web calls without a language model', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { RATE_LIMIT_PER_MINUTE: '10' } });
  });
  afterAll(async () => {
    await platform.close();
  });

  it('answer 503 saying how to configure one, as chats do; the public route is rate-limited per client', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    const bearer = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(bearer.status).toBe(503);
    expect(bearer.body).toEqual({ message: 'No language model is configured. Set LLM_BASE_URL and LLM_API_KEY.' });

    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await platform.request('POST', '/web-calls', { body: { assistant_id: assistant.uuid } })).status);
    expect(statuses).toEqual([...Array<number>(10).fill(503), 429]);
    expect(await platform.database.knex('calls').where({ userId: owner.id })).toEqual([]);
  });
});
