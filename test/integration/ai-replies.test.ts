import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';
import { createTestUser } from '../support/users.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';

const paths = ['/user/ai/generate-reply', '/ai/generate-reply'] as const;

describe('AI replies for other channels', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let slots: LoopbackServer;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    slots = await listenOnLoopback(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"slots":["2025-01-08 14:00"]}')));
    platform = await startTestPlatform({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
    await slots.close();
  });

  const generate = (path: string, token: string | undefined, body: unknown) => platform.request('POST', path, { token, body });

  for (const path of paths) {
    it(`${path}: keeps one conversation per customer, merges its variables and returns the functions called`, async () => {
      const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
      const tool = await platform.request('POST', '/user/tools', {
        token: owner.token,
        body: { name: 'check_availability', description: 'Free slots', endpoint: `${slots.url}/slots`, method: 'GET' },
      });
      const assistant = await createTestAssistant(platform, owner, {
        system_prompt: 'You help {{customer_name}} who writes on {{source}}.',
        tool_ids: [tool.body.data.id],
      });

      llm.script({ reply: 'Hi John! When would suit you?' });
      const first = await generate(path, owner.token, {
        assistant_id: assistant.id, customer_identifier: '+49155551234', message: 'I would like an appointment', variables: { customer_name: 'John', source: 'sms' },
      });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({
        success: true,
        conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        customer_identifier: '+49155551234',
        reply: 'Hi John! When would suit you?',
        function_calls: [],
        ai_disabled: false,
      });
      // The customer writes first on these channels: no opening line, the prompt's variables filled.
      expect(llm.requests.at(-1)?.messages).toEqual([
        { role: 'system', content: 'You help John who writes on sms.' },
        { role: 'user', content: 'I would like an appointment' },
      ]);

      llm.script({ toolCalls: [{ name: 'check_availability', arguments: { days: 7 } }] }, { reply: 'Tomorrow at 2 PM is free.' });
      const second = await generate(path, owner.token, {
        assistant_id: String(assistant.id), customer_identifier: '+49155551234', message: 'What is free this week?', variables: { source: 'whatsapp' },
      });
      expect(second.body).toEqual({
        success: true,
        conversation_id: first.body.conversation_id,
        customer_identifier: '+49155551234',
        reply: 'Tomorrow at 2 PM is free.',
        function_calls: [{ name: 'check_availability', arguments: { days: 7 }, result: { slots: ['2025-01-08 14:00'] } }],
        ai_disabled: false,
      });
      const context = llm.requests.at(-2)?.messages;
      expect(context?.[0]).toEqual({ role: 'system', content: 'You help John who writes on whatsapp.' });
      expect(context?.slice(1)).toEqual([
        { role: 'user', content: 'I would like an appointment' },
        { role: 'assistant', content: 'Hi John! When would suit you?' },
        { role: 'user', content: 'What is free this week?' },
      ]);

      llm.script({ reply: 'Hello, who is this?' });
      const another = await generate(path, owner.token, { assistant_id: assistant.id, customer_identifier: 'crm-77', message: 'Hello' });
      expect(another.body.conversation_id).not.toBe(first.body.conversation_id);
      expect(llm.requests.at(-1)?.messages.slice(1)).toEqual([{ role: 'user', content: 'Hello' }]);
      // The identifier is trimmed, as Laravel trims input: the spaces around it name the same customer.
      llm.script({ reply: 'Hello again.' });
      const padded = await generate(path, owner.token, { assistant_id: assistant.id, customer_identifier: ' crm-77 ', message: 'Me again' });
      expect(padded.body).toMatchObject({ conversation_id: another.body.conversation_id, customer_identifier: 'crm-77' });

      const history = await platform.request('GET', `/conversations/${first.body.conversation_id}`);
      expect(history.body).toEqual({
        status: true,
        history: [
          { role: 'user', content: 'I would like an appointment' },
          { role: 'assistant', content: 'Hi John! When would suit you?' },
          { role: 'user', content: 'What is free this week?' },
          { role: 'assistant', content: 'Tomorrow at 2 PM is free.', function_calls: second.body.function_calls },
        ],
        variables: { customer_name: 'John', source: 'whatsapp' },
        external_identifier: '+49155551234',
        ai_enabled: true,
      });
      const listed = await platform.request('GET', '/user/conversations?type=api&external_identifier=%2B49155551234', { token: owner.token });
      expect(listed.body.data).toEqual([expect.objectContaining({
        id: first.body.conversation_id, type: 'api', external_identifier: '+49155551234', message_count: 4, total_cost: 0.02, ai_enabled: true,
      })]);
      // Four customer messages, charged as widget messages.
      expect((await platform.request('GET', '/user/me', { token: owner.token })).body.total_balance).toBe(0.96);
    });

    it(`${path}: stores the message without a reply while a person has taken the conversation over`, async () => {
      const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
      const assistant = await createTestAssistant(platform, owner);
      llm.script({ reply: 'Hello!' });
      const first = await generate(path, owner.token, { assistant_id: assistant.id, customer_identifier: 'jane@example.com', message: 'Hi' });
      await platform.request('POST', `/automate/conversations/${first.body.conversation_id}/disable-ai`, { token: owner.token });
      const modelCalls = llm.requests.length;
      const held = await generate(path, owner.token, { assistant_id: assistant.id, customer_identifier: 'jane@example.com', message: 'A person, please' });
      expect(held.body).toEqual({
        success: true, conversation_id: first.body.conversation_id, customer_identifier: 'jane@example.com', reply: '', function_calls: [], ai_disabled: true,
      });
      expect(llm.requests.length).toBe(modelCalls);
      expect((await platform.request('GET', `/conversations/${first.body.conversation_id}`)).body.history.at(-1)).toEqual({ role: 'user', content: 'A person, please' });
    });

    it(`${path}: 404 ASSISTANT_NOT_FOUND for another account's or an unknown assistant, 402 INSUFFICIENT_BALANCE, 422 and 401`, async () => {
      const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
      const broke = await createTestUser(platform.database.knex);
      const mine = await createTestAssistant(platform, owner);
      const theirs = await createTestAssistant(platform, broke);
      for (const assistantId of [theirs.id, 987654321]) {
        const missing = await generate(path, owner.token, { assistant_id: assistantId, customer_identifier: 'c1', message: 'Hi' });
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ success: false, error: 'Assistant not found or does not belong to you', error_code: 'ASSISTANT_NOT_FOUND' });
      }
      const unpaid = await generate(path, broke.token, { assistant_id: theirs.id, customer_identifier: 'c1', message: 'Hi' });
      expect(unpaid.status).toBe(402);
      expect(unpaid.body).toEqual({ success: false, error: 'Insufficient balance. Please top up your account.', error_code: 'INSUFFICIENT_BALANCE' });

      const required = await generate(path, owner.token, {});
      expect(required.status).toBe(422);
      expect(required.body).toEqual({
        message: 'The assistant id field is required. (and 2 more errors)',
        errors: {
          assistant_id: ['The assistant id field is required.'],
          customer_identifier: ['The customer identifier field is required.'],
          message: ['The message field is required.'],
        },
      });
      // Laravel trims input: blank strings are missing.
      const blank = await generate(path, owner.token, { assistant_id: mine.id, customer_identifier: '   ', message: ' \n ' });
      expect(blank.status).toBe(422);
      expect(blank.body).toEqual({
        message: 'The customer identifier field is required. (and 1 more error)',
        errors: { customer_identifier: ['The customer identifier field is required.'], message: ['The message field is required.'] },
      });
      const tooLong = await generate(path, owner.token, { assistant_id: mine.id, customer_identifier: 'x'.repeat(256), message: 'Hi' });
      expect(tooLong.status).toBe(422);
      expect(tooLong.body.errors).toEqual({ customer_identifier: ['The customer identifier field must not be greater than 255 characters.'] });

      const unauthenticated = await generate(path, undefined, { assistant_id: mine.id, customer_identifier: 'c1', message: 'Hi' });
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.body).toEqual({ message: 'Unauthenticated.' });
      // None of the refusals made a conversation.
      expect((await platform.request('GET', '/user/conversations', { token: owner.token })).body.data).toEqual([]);
    });
  }

  it('answers a failed model in the same family (400 PROVIDER_FAILED), with the message undone and refunded', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    // Twice: the provider retries a 5xx once.
    llm.script({ status: 500, error: 'upstream exploded' }, { status: 500, error: 'upstream exploded' });
    const failed = await generate(paths[0], owner.token, { assistant_id: assistant.id, customer_identifier: 'c1', message: 'Hi' });
    expect(failed.status).toBe(400);
    expect(failed.body).toEqual({ success: false, error: expect.stringMatching(/^Failed to process message: /), error_code: 'PROVIDER_FAILED' });
    expect((await platform.request('GET', '/user/me', { token: owner.token })).body.total_balance).toBe(1);
    const [conversation] = (await platform.request('GET', '/user/conversations', { token: owner.token })).body.data;
    expect(conversation).toEqual(expect.objectContaining({ message_count: 0, total_cost: 0 }));
  });

  it('allows 5 requests a minute per token, both spellings counted together, then 429 Too Many Attempts', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner);
    llm.respond(() => ({ reply: 'OK' }));
    const statuses = [];
    for (let i = 0; i < 5; i++) statuses.push((await generate(paths[i % 2]!, owner.token, { assistant_id: assistant.id, customer_identifier: 'c1', message: `m${i}` })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    for (const path of paths) {
      const limited = await generate(path, owner.token, { assistant_id: assistant.id, customer_identifier: 'c1', message: 'one more' });
      expect(limited.status).toBe(429);
      expect(limited.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
      expect(Number(limited.headers.get('retry-after'))).toBe(limited.body.retry_after);
      expect(limited.headers.get('x-ratelimit-limit')).toBe('5');
    }
    // The limit is the token's: another token has its own five.
    const other = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const otherAssistant = await createTestAssistant(platform, other);
    expect((await generate(paths[0], other.token, { assistant_id: otherAssistant.id, customer_identifier: 'c1', message: 'hi' })).status).toBe(200);
    // The rest of the API is not held back by it.
    expect((await platform.request('GET', '/user/me', { token: owner.token })).status).toBe(200);
  });
});
