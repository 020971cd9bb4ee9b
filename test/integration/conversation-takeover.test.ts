import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';

describe('human takeover of a conversation', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    platform = await startTestPlatform({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  const send = (uuid: string, message: string, headers?: Record<string, string>) =>
    platform.request('POST', `/conversations/${uuid}/messages`, { body: { message }, headers });
  const aiSwitch = (uuid: string, action: 'disable-ai' | 'enable-ai', token?: string) =>
    platform.request('POST', `/automate/conversations/${uuid}/${action}`, { token });
  const operator = (uuid: string, body: unknown, token?: string) => platform.request('POST', `/user/conversations/${uuid}/messages`, { body, token });

  async function widgetConversation(owner: TestUser): Promise<string> {
    const assistant = await createTestAssistant(platform, owner, { initial_message: 'Hi there!' });
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } });
    expect(started.status).toBe(200);
    return started.body.conversation_id as string;
  }

  it('stores user messages without a reply while the AI is off, takes an operator\'s answers, and replies again once it is back on', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const uuid = await widgetConversation(owner);

    const disabled = await aiSwitch(uuid, 'disable-ai', owner.token);
    expect(disabled.status).toBe(200);
    expect(disabled.body).toEqual({ status: true, ai_enabled: false });
    const modelCalls = llm.requests.length;
    const held = await send(uuid, 'I want to talk to a person');
    expect(held.status).toBe(200);
    expect(held.body).toEqual({ status: true, message: '', function_calls: [], ai_enabled: false });
    const streamed = await send(uuid, 'Anyone there?', { accept: 'text/event-stream' });
    expect(streamed.headers.get('content-type')).toContain('text/event-stream');
    expect(streamed.text).toBe(`event: done\ndata: ${JSON.stringify({ status: true, message: '', function_calls: [], ai_enabled: false })}\n\n`);
    expect(llm.requests.length).toBe(modelCalls);

    const answered = await operator(uuid, { message: 'Hello, this is Maria from support.' }, owner.token);
    expect(answered.status).toBe(201);
    expect(answered.body).toEqual({
      status: true,
      message: { role: 'assistant', content: 'Hello, this is Maria from support.', human: true, created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/) },
    });
    const during = await platform.request('GET', `/conversations/${uuid}`);
    expect(during.body).toEqual({
      status: true,
      history: [
        { role: 'assistant', content: 'Hi there!' },
        { role: 'user', content: 'I want to talk to a person' },
        { role: 'user', content: 'Anyone there?' },
        { role: 'assistant', content: 'Hello, this is Maria from support.', human: true },
      ],
      variables: {},
      ai_enabled: false,
    });
    const listed = await platform.request('GET', '/user/conversations', { token: owner.token });
    expect(listed.body.data[0]).toEqual(expect.objectContaining({ id: uuid, ai_enabled: false, message_count: 4, total_cost: 0.02 }));

    expect((await aiSwitch(uuid, 'enable-ai', owner.token)).body).toEqual({ status: true, ai_enabled: true });
    llm.script({ reply: 'Back to me: how can I help?' });
    const replied = await send(uuid, 'Thanks Maria, and one more question');
    expect(replied.body).toEqual({ status: true, message: 'Back to me: how can I help?', function_calls: [] });
    // The model sees the whole conversation, the operator's answer as the assistant's.
    expect(llm.requests.at(-1)?.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hi there!' },
      { role: 'user', content: 'I want to talk to a person' },
      { role: 'user', content: 'Anyone there?' },
      { role: 'assistant', content: 'Hello, this is Maria from support.' },
      { role: 'user', content: 'Thanks Maria, and one more question' },
    ]);
    expect((await platform.request('GET', `/conversations/${uuid}`)).body.ai_enabled).toBe(true);
  });

  it('lets an operator answer while the AI is on, without charging or calling the model', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const uuid = await widgetConversation(owner);
    const modelCalls = llm.requests.length;
    expect((await operator(uuid, { message: 'A person here, just so you know.' }, owner.token)).status).toBe(201);
    expect(llm.requests.length).toBe(modelCalls);
    expect((await platform.request('GET', '/user/me', { token: owner.token })).body.total_balance).toBe(1);
    expect((await platform.request('GET', `/conversations/${uuid}`)).body.history.at(-1)).toEqual({ role: 'assistant', content: 'A person here, just so you know.', human: true });
  });

  for (const action of ['disable-ai', 'enable-ai'] as const) {
    it(`${action}: 401 {"error":"Unauthorized"} without a valid key, 404 for another account's or an unknown conversation`, async () => {
      const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
      const stranger = await createTestUser(platform.database.knex);
      const uuid = await widgetConversation(owner);
      for (const token of [undefined, 'not-a-key']) {
        const refused = await aiSwitch(uuid, action, token);
        expect(refused.status).toBe(401);
        expect(refused.body).toEqual({ error: 'Unauthorized' });
      }
      // Any text that is no conversation of the caller's is the documented 404, a long one too (not a 422).
      for (const [target, token] of [[uuid, stranger.token], ['7c9e6679-7425-40de-944b-e07fc1f90ae7', owner.token], ['not-a-uuid', owner.token], ['x'.repeat(80), owner.token]] as const) {
        const missing = await aiSwitch(target, action, token);
        expect(missing.status).toBe(404);
        expect(missing.body).toEqual({ status: false, error: 'Conversation not found' });
      }
      // The stranger's attempt changed nothing.
      expect((await platform.request('GET', `/conversations/${uuid}`)).body.ai_enabled).toBe(true);
    });
  }

  it('operator messages: 401 without a key, 404 for another account\'s or an unknown conversation, 422 without a message', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const stranger = await createTestUser(platform.database.knex);
    const uuid = await widgetConversation(owner);
    const unauthenticated = await operator(uuid, { message: 'hi' });
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.body).toEqual({ message: 'Unauthenticated.' });
    for (const [target, token] of [[uuid, stranger.token], ['7c9e6679-7425-40de-944b-e07fc1f90ae7', owner.token], ['x'.repeat(80), owner.token]] as const) {
      const missing = await operator(target, { message: 'hi' }, token);
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ status: false, error: 'Conversation not found' });
    }
    // A blank message is missing, as Laravel trims input.
    for (const body of [{}, { message: '' }, { message: ' \n ' }]) {
      const invalid = await operator(uuid, body, owner.token);
      expect(invalid.status).toBe(422);
      expect(invalid.body).toEqual({ status: false, error: 'message is required' });
    }
    const long = await operator(uuid, { message: 'x'.repeat(2001) }, owner.token);
    expect(long.body).toEqual({ status: false, error: 'message may not be greater than 2000 characters' });
    expect((await platform.request('GET', `/conversations/${uuid}`)).body.history).toEqual([{ role: 'assistant', content: 'Hi there!' }]);
  });
});
