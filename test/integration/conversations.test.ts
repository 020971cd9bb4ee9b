import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordEntry } from '../../src/billing/ledger.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { uploadDocument, waitForDocument } from '../support/documents.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { listenOnLoopback } from '../support/ports.ts';

/** A mid-call tool endpoint: /order answers JSON, /fail answers 503. */
async function startToolEndpoint() {
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/order')) res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"shipped"}');
    else res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":"maintenance"}');
  });
  return listenOnLoopback(server);
}

async function balance(platform: TestPlatform, user: TestUser): Promise<number> {
  return (await platform.request('GET', '/user/me', { token: user.token })).body.total_balance as number;
}

describe('text conversations', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let endpoint: Awaited<ReturnType<typeof startToolEndpoint>>;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    endpoint = await startToolEndpoint();
    platform = await startTestPlatform({ worker: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
    await endpoint.close();
  });

  const start = (body: Record<string, unknown>) => platform.request('POST', '/conversations', { body });
  const send = (uuid: string, message: string) => platform.request('POST', `/conversations/${uuid}/messages`, { body: { message } });

  it('starts with the initial message, variables filled, and fills them in the system prompt too', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner, {
      initial_message: 'Hi {{customer_name}}, calling about order {{order}}. {{unknown}}',
      system_prompt: 'You help {{customer_name}} from {{company}}.',
      variables: { company: 'Acme' },
    });
    const started = await start({ assistant_id: assistant.uuid, type: 'test', variables: { customer_name: 'Ada', order: 42 } });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({
      status: true,
      conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      history: [{ role: 'assistant', content: 'Hi Ada, calling about order 42. {{unknown}}' }],
    });
    llm.script({ reply: 'Sure, Ada.' });
    const reply = await send(started.body.conversation_id, 'Where is my order?');
    expect(reply.body).toEqual({ status: true, message: 'Sure, Ada.', function_calls: [] });
    const request = llm.requests.at(-1);
    expect(request?.model).toBe('gpt-4o-mini');
    expect(request?.messages).toEqual([
      { role: 'system', content: 'You help Ada from Acme.' },
      { role: 'assistant', content: 'Hi Ada, calling about order 42. {{unknown}}' },
      { role: 'user', content: 'Where is my order?' },
    ]);
    const history = await platform.request('GET', `/conversations/${started.body.conversation_id}`);
    expect(history.body).toEqual({
      status: true,
      history: [
        { role: 'assistant', content: 'Hi Ada, calling about order 42. {{unknown}}' },
        { role: 'user', content: 'Where is my order?' },
        { role: 'assistant', content: 'Sure, Ada.' },
      ],
      variables: { customer_name: 'Ada', order: 42 },
      ai_enabled: true,
    });
  });

  it('runs a turn with two tool calls, one failing, and records both on the message', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const tool = async (name: string, path: string) => (await platform.request('POST', '/user/tools', {
      token: owner.token,
      body: { name, description: `Calls ${path}`, endpoint: `${endpoint.url}${path}`, method: 'GET', schema: [{ name: 'order_id', type: 'string', description: 'The order' }] },
    })).body.data.id as number;
    const assistant = await createTestAssistant(platform, owner, { tool_ids: [await tool('order_status', '/order'), await tool('refund_status', '/fail')] });
    const { body } = await start({ assistant_id: assistant.uuid, type: 'test' });
    llm.script(
      { toolCalls: [{ name: 'order_status', arguments: { order_id: 'A1' } }, { name: 'refund_status', arguments: { order_id: 'A1' } }] },
      { reply: 'Your order shipped; the refund system is down.' },
    );
    const reply = await send(body.conversation_id, 'Status of A1 and its refund?');
    expect(reply.status).toBe(200);
    expect(reply.body.message).toBe('Your order shipped; the refund system is down.');
    expect(reply.body.function_calls).toEqual([
      { name: 'order_status', arguments: { order_id: 'A1' }, result: { status: 'shipped' } },
      { name: 'refund_status', arguments: { order_id: 'A1' }, result: { error: 'the endpoint answered HTTP 503', status: 503, body: { error: 'maintenance' } } },
    ]);
    expect(llm.requests.at(-2)?.tools?.map((entry) => entry.function.name)).toEqual(['order_status', 'refund_status', 'end_call']);
    const history = await platform.request('GET', `/conversations/${body.conversation_id}`);
    expect(history.body.history.at(-1)).toEqual({ role: 'assistant', content: reply.body.message, function_calls: reply.body.function_calls });
  });

  it('lets the model search the knowledge base and answer from it', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const kb = await platform.request('POST', '/user/knowledgebases', { token: owner.token, body: { name: 'Shop FAQ' } });
    const kbId = (kb.body.data?.id ?? kb.body.id) as number;
    const doc = await uploadDocument(platform, owner.token, kbId, { name: 'Opening hours', type: 'txt' }, {
      name: 'hours.txt', data: Buffer.from('Opening hours\n\nThe shop in Cluj is open from 9 to 17 on weekdays and closed on Sundays.'), type: 'text/plain',
    });
    expect(doc.status).toBe(201);
    expect((await waitForDocument(platform, owner.token, kbId, doc.body.data.id)).status).toBe('active');
    const assistant = await createTestAssistant(platform, owner, { knowledgebase_id: kbId, knowledgebase_mode: 'function_call' });
    const { body } = await start({ assistant_id: assistant.uuid, type: 'test' });
    llm.script({ toolCalls: [{ name: 'search_knowledge_base', arguments: { query: 'opening hours Sundays' } }] }, { reply: 'We are closed on Sundays.' });
    const reply = await send(body.conversation_id, 'Are you open on Sundays?');
    expect(reply.body.message).toBe('We are closed on Sundays.');
    const search = reply.body.function_calls[0];
    expect(search.name).toBe('search_knowledge_base');
    expect(JSON.stringify(search.result)).toContain('closed on Sundays');
    const toolMessage = llm.requests.at(-1)?.messages.find((message) => message.role === 'tool');
    expect(toolMessage?.content).toContain('closed on Sundays');
  }, 60_000); // a real ingestion workflow runs first, alongside other files' ingestions

  it('puts retrieved passages in the system prompt when the knowledge base is used in prompt mode', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const kb = await platform.request('POST', '/user/knowledgebases', { token: owner.token, body: { name: 'Returns' } });
    const kbId = (kb.body.data?.id ?? kb.body.id) as number;
    const doc = await uploadDocument(platform, owner.token, kbId, { name: 'Returns policy', type: 'txt' }, {
      name: 'returns.txt', data: Buffer.from('Returns policy\n\nUnworn shoes can be returned within 30 days with the receipt.'), type: 'text/plain',
    });
    expect((await waitForDocument(platform, owner.token, kbId, doc.body.data.id)).status).toBe('active');
    const assistant = await createTestAssistant(platform, owner, { knowledgebase_id: kbId, knowledgebase_mode: 'prompt' });
    const { body } = await start({ assistant_id: assistant.uuid, type: 'test' });
    llm.script({ reply: 'You have 30 days.' });
    expect((await send(body.conversation_id, 'Can I return shoes?')).body.message).toBe('You have 30 days.');
    const request = llm.requests.at(-1);
    expect(request?.messages[0]?.role).toBe('system');
    expect(request?.messages[0]?.content).toContain('returned within 30 days');
    expect(request?.tools?.map((tool) => tool.function.name)).toEqual(['end_call']);
  }, 60_000);

  it('streams the reply as server-sent events: tokens, tool calls, then done', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    const { body } = await start({ assistant_id: assistant.uuid, type: 'test' });
    llm.script({ toolCalls: [{ name: 'end_call', arguments: {} }] }, { reply: 'Thanks for chatting, goodbye!' });
    const response = await fetch(`${platform.baseUrl}/api/conversations/${body.conversation_id}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ message: 'bye' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const events = (await response.text()).trim().split('\n\n').map((block) => {
      const [event, data] = block.split('\n');
      return { event: event?.replace('event: ', ''), data: JSON.parse(data?.replace('data: ', '') ?? 'null') as Record<string, unknown> };
    });
    const tokens = events.filter((event) => event.event === 'token');
    expect(tokens.length).toBeGreaterThan(2);
    expect(tokens.map((event) => event.data.text).join('')).toBe('Thanks for chatting, goodbye!');
    expect(events.find((event) => event.event === 'tool_call')?.data).toEqual({ name: 'end_call', arguments: {}, result: { ended: true } });
    expect(events.at(-1)).toEqual({
      event: 'done',
      data: { status: true, message: 'Thanks for chatting, goodbye!', function_calls: [{ name: 'end_call', arguments: {}, result: { ended: true } }] },
    });
  });

  it('charges 0.01 USD per widget message and nothing for test conversations', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    llm.respond(() => ({ reply: 'OK' }));
    const widget = await start({ assistant_id: assistant.uuid });
    await send(widget.body.conversation_id, 'one');
    await send(widget.body.conversation_id, 'two');
    expect(await balance(platform, owner)).toBe(0.98);
    const test = await start({ assistant_id: assistant.uuid, type: 'test' });
    await send(test.body.conversation_id, 'free');
    expect(await balance(platform, owner)).toBe(0.98);
  });

  it('auto-recharges, in the background, when a widget message leaves the balance below the threshold', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    await platform.request('POST', '/user/payment-methods', { token: owner.token, body: { payment_method: 'pm_card_visa' } });
    await platform.request('PUT', '/user/balance/auto-recharge', { token: owner.token, body: { enabled: true, threshold: 1, amount: 10 } });
    llm.respond(() => ({ reply: 'OK' }));
    const widget = await start({ assistant_id: assistant.uuid });
    expect((await send(widget.body.conversation_id, 'one')).status).toBe(200);
    // The reply does not wait for the card payment: the recharge lands after it.
    await vi.waitFor(async () => expect(await balance(platform, owner)).toBe(10.99), { timeout: 5000, interval: 20 });
    expect(await platform.database.knex('top_ups').where({ userId: owner.id, automatic: true }).pluck('status')).toEqual(['succeeded']);
  });

  it('refuses a widget conversation when the owner has no balance, and a message once it runs out', async () => {
    const broke = await createTestUser(platform.database.knex);
    const brokeAssistant = await createTestAssistant(platform, broke);
    const refused = await start({ assistant_id: brokeAssistant.uuid });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ status: false, error: 'Insufficient balance. Please top up your account.' });
    expect((await start({ assistant_id: brokeAssistant.uuid, type: 'test' })).status).toBe(200);

    const owner = await createTestUser(platform.database.knex, { balanceUsd: 0.01 });
    const assistant = await createTestAssistant(platform, owner);
    llm.respond(() => ({ reply: 'OK' }));
    const { body } = await start({ assistant_id: assistant.uuid });
    expect((await send(body.conversation_id, 'paid')).status).toBe(200);
    const out = await send(body.conversation_id, 'no money left');
    expect(out.status).toBe(400);
    expect(out.body).toEqual({ status: false, error: 'Insufficient balance. Please top up your account.' });
    const history = await platform.request('GET', `/conversations/${body.conversation_id}`);
    expect(history.body.history.map((message: { content: string }) => message.content)).not.toContain('no money left');
  });

  it('charges exactly as many of 50 concurrent messages as the balance covers (20), never below zero', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 0.2 });
    const assistant = await createTestAssistant(platform, owner);
    llm.respond(() => ({ reply: 'OK' }));
    const { body } = await start({ assistant_id: assistant.uuid });
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => send(body.conversation_id, `message ${i}`)));
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(20);
    expect(statuses.filter((status) => status === 400)).toHaveLength(30);
    expect(await balance(platform, owner)).toBe(0);
    const charges = await platform.database.knex('balance_transactions').where({ userId: owner.id, kind: 'conversation_message' }).count({ count: '*' }).first();
    expect(Number(charges?.count)).toBe(20);
    // The opening line, then 20 questions and their 20 answers; the refused 30 leave nothing behind.
    const listed = await platform.request('GET', `/user/conversations?assistant_id=${assistant.uuid}`, { token: owner.token });
    expect(listed.body.data[0]).toMatchObject({ message_count: 41, total_cost: 0.2 });
  });

  it("starts with the assistant's current opening and balance, however the process last saw them", async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner, { initial_message: 'Hello {{name}}.', variables: { name: 'there' } });
    const opening = async () => (await start({ assistant_id: assistant.uuid })).body.history;
    expect(await opening()).toEqual([{ role: 'assistant', content: 'Hello there.' }]);
    expect(await opening()).toEqual([{ role: 'assistant', content: 'Hello there.' }]);
    // Changed behind this process's back, as another replica would: the next start reads it afresh.
    await platform.database.knex('assistants').where({ uuid: assistant.uuid }).update({ variables: { name: 'friend' } });
    expect(await opening()).toEqual([{ role: 'assistant', content: 'Hello friend.' }]);
    await platform.database.knex('assistants').where({ uuid: assistant.uuid }).update({ initialMessage: 'Welcome back.' });
    expect(await opening()).toEqual([{ role: 'assistant', content: 'Welcome back.' }]);
    // An opening that fills to nothing is none: no empty line is stored, or later sent to the model.
    await platform.database.knex('assistants').where({ uuid: assistant.uuid }).update({ initialMessage: ' ' });
    for (const started of [await start({ assistant_id: assistant.uuid }), await start({ assistant_id: assistant.uuid })]) {
      expect(started.body.history).toEqual([]);
      expect((await platform.request('GET', `/conversations/${started.body.conversation_id}`)).body.history).toEqual([]);
    }
    await recordEntry(platform.database.knex, { userId: owner.id, amountMicros: -1_000_000, kind: 'adjustment', idempotencyKey: randomUUID() });
    expect((await start({ assistant_id: assistant.uuid })).body).toEqual({ status: false, error: 'Insufficient balance. Please top up your account.' });
    await platform.database.knex('assistants').where({ uuid: assistant.uuid }).delete();
    expect((await start({ assistant_id: assistant.uuid, type: 'test' })).status).toBe(404);
  });

  it('answers 404 for an unknown conversation or assistant', async () => {
    expect((await send(randomUUID(), 'hello')).body).toEqual({ status: false, error: 'Conversation not found' });
    expect((await send(randomUUID(), 'hello')).status).toBe(404);
    expect((await platform.request('GET', '/conversations/not-a-uuid')).body).toEqual({ status: false, error: 'Conversation not found' });
    const missing = await start({ assistant_id: randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ status: false, error: 'Assistant not found' });
  });

  it('validates the message in the conversation error shape, a blank one as missing', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    const { body } = await start({ assistant_id: assistant.uuid, type: 'test' });
    const empty = await platform.request('POST', `/conversations/${body.conversation_id}/messages`, { body: {} });
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ status: false, error: 'message is required' });
    // Only spaces is no message either (Laravel trims input), and reaches no model.
    const blank = await send(body.conversation_id, '  \n ');
    expect(blank.status).toBe(422);
    expect(blank.body).toEqual({ status: false, error: 'message is required' });
    const long = await send(body.conversation_id, 'x'.repeat(2001));
    expect(long.status).toBe(422);
    expect((await send(body.conversation_id, 'x'.repeat(2000))).status).toBe(200);
  });

  it('undoes the message and refunds it when the model fails', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    const { body } = await start({ assistant_id: assistant.uuid });
    llm.script({ status: 500, error: 'model exploded' }, { status: 500, error: 'model exploded' });
    const failed = await send(body.conversation_id, 'hello?');
    expect(failed.status).toBe(400);
    expect(failed.body.status).toBe(false);
    expect(failed.body.error).toMatch(/^Failed to process message: /);
    expect(await balance(platform, owner)).toBe(1);
    const history = await platform.request('GET', `/conversations/${body.conversation_id}`);
    expect(history.body.history).toEqual([{ role: 'assistant', content: 'Hello!' }]);
  });

  it("lists the owner's conversations with counts and costs, filtered, with cursors", async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const other = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    const second = await createTestAssistant(platform, owner, { name: 'Second' });
    await createTestAssistant(platform, other);
    llm.respond(() => ({ reply: 'OK' }));
    const widget = await start({ assistant_id: assistant.uuid });
    await send(widget.body.conversation_id, 'paid message');
    await start({ assistant_id: assistant.uuid, type: 'test' });
    await start({ assistant_id: second.uuid, type: 'test' });

    const all = await platform.request('GET', '/user/conversations?per_page=2', { token: owner.token });
    expect(all.status).toBe(200);
    expect(all.body.data).toHaveLength(2);
    expect(all.body.per_page).toBe(2);
    expect(all.body.prev_cursor).toBeNull();
    const next = await platform.request('GET', `/user/conversations?per_page=2&cursor=${all.body.next_cursor}`, { token: owner.token });
    expect(next.body.data).toHaveLength(1);
    expect(next.body.next_cursor).toBeNull();
    const oldest = next.body.data[0];
    expect(oldest).toEqual({
      id: widget.body.conversation_id,
      assistant_id: assistant.uuid,
      assistant_name: 'Test Assistant',
      type: 'widget',
      variables: {},
      message_count: 3,
      total_cost: 0.01,
      ai_enabled: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
    });
    const back = await platform.request('GET', `/user/conversations?per_page=2&cursor=${next.body.prev_cursor}`, { token: owner.token });
    expect(back.body.data.map((item: { id: string }) => item.id)).toEqual(all.body.data.map((item: { id: string }) => item.id));

    const tests = await platform.request('GET', '/user/conversations?type=test', { token: owner.token });
    expect(tests.body.data.every((item: { type: string }) => item.type === 'test')).toBe(true);
    expect(tests.body.data).toHaveLength(2);
    const bySecond = await platform.request('GET', `/user/conversations?assistant_id=${second.uuid}`, { token: owner.token });
    expect(bySecond.body.data.map((item: { assistant_name: string }) => item.assistant_name)).toEqual(['Second']);
    const bySecondId = await platform.request('GET', `/user/conversations?assistant_id=${second.id}`, { token: owner.token });
    expect(bySecondId.body.data).toEqual(bySecond.body.data);
    const others = await platform.request('GET', '/user/conversations', { token: other.token });
    expect(others.body.data).toEqual([]);
  });
});

describe('conversations without a language model', () => {
  it('answer 503 saying how to configure one, and charge nothing', async () => {
    const platform = await startTestPlatform({ env: { LLM_BASE_URL: '' } });
    try {
      const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
      const assistant = await createTestAssistant(platform, owner);
      const { body } = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } });
      const response = await platform.request('POST', `/conversations/${body.conversation_id}/messages`, { body: { message: 'hi' } });
      expect(response.status).toBe(503);
      expect(response.body).toEqual({ status: false, error: 'No language model is configured. Set LLM_BASE_URL and LLM_API_KEY.' });
      expect(await balance(platform, owner)).toBe(1);
      const history = await platform.request('GET', `/conversations/${body.conversation_id}`);
      expect(history.body.history).toEqual([{ role: 'assistant', content: 'Hello!' }]);
    } finally {
      await platform.close();
    }
  });
});
