import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { testClock } from '../support/clock.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

const fromAddress = 'Too many test messages from this address. Please wait a moment.';
const forAssistant = 'This assistant has used up its free test messages for now. Its owner can keep testing with their API key.';

describe('free test conversations, limited per assistant and per client address', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  const clock = testClock();

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond(() => ({ reply: 'OK' }));
    platform = await startTestPlatform({
      env: {
        LLM_BASE_URL: llm.baseUrl,
        LLM_API_KEY: 'test',
        TEST_CHAT_PER_ASSISTANT_PER_HOUR: '4',
        TEST_CHAT_PER_ADDRESS_PER_MINUTE: '3',
        TRUST_PROXY: 'true',
      },
      clock: clock.now,
    });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  let addresses = 0;
  const newAddress = () => `192.0.2.${++addresses}`;
  const start = async (assistantUuid: string, type: 'test' | 'widget' = 'test') =>
    (await platform.request('POST', '/conversations', { body: { assistant_id: assistantUuid, type } })).body.conversation_id as string;
  const send = (uuid: string, address: string, headers: Record<string, string> = {}) =>
    platform.request('POST', `/conversations/${uuid}/messages`, { body: { message: 'Hello?' }, headers: { 'x-forwarded-for': address, ...headers } });
  const assistantOfNewOwner = async (balanceUsd = 0) => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd });
    return { owner, assistant: await createTestAssistant(platform, owner) };
  };

  it('refuses a client address past its messages a minute, leaving no trace and calling no model, until it may again', async () => {
    const { assistant } = await assistantOfNewOwner();
    const other = await assistantOfNewOwner();
    const address = newAddress();
    const conversation = await start(assistant.uuid);
    for (let i = 0; i < 3; i++) expect((await send(conversation, address)).status).toBe(200);
    const modelCalls = llm.requests.length;

    const otherConversation = await start(other.assistant.uuid);
    const refused = await send(otherConversation, address);
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: false, error: fromAddress });
    expect(refused.headers.get('retry-after')).toBe('20');
    const streamed = await send(conversation, address, { accept: 'text/event-stream' });
    expect(streamed.status).toBe(429);
    expect(streamed.body).toEqual({ status: false, error: fromAddress });
    expect(llm.requests.length).toBe(modelCalls);
    // The opening line, then three questions and their answers.
    const history = await platform.request('GET', `/conversations/${conversation}`);
    expect(history.body.history).toHaveLength(7);
    const [row] = await platform.database.knex('conversations').where({ uuid: conversation }).select('message_count');
    expect(row?.messageCount).toBe(7);

    expect((await send(conversation, newAddress())).status).toBe(200);
    clock.advance(19_000);
    expect((await send(otherConversation, address)).status).toBe(429);
    clock.advance(1_000);
    expect((await send(otherConversation, address)).status).toBe(200);
  });

  it("refuses an assistant's test messages past its hourly budget from every address, but not its owner's", async () => {
    const { owner, assistant } = await assistantOfNewOwner();
    const conversation = await start(assistant.uuid);
    for (let i = 0; i < 4; i++) expect((await send(conversation, newAddress())).status).toBe(200);
    const refused = await send(conversation, newAddress());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ status: false, error: forAssistant });
    expect(refused.headers.get('retry-after')).toBe('900');

    // The owner's API key or session token lifts the limit; anyone else's credential does not.
    expect((await send(conversation, newAddress(), { authorization: `Bearer ${owner.token}` })).status).toBe(200);
    const session = await platform.request('POST', '/auth/login', { body: { email: owner.email, password: owner.password } });
    expect((await send(conversation, newAddress(), { authorization: `Bearer ${session.body.token as string}` })).status).toBe(200);
    const stranger = await createTestUser(platform.database.knex);
    expect((await send(conversation, newAddress(), { authorization: `Bearer ${stranger.token}` })).status).toBe(429);
    expect((await send(conversation, newAddress(), { authorization: 'Bearer 1|not-a-real-token' })).status).toBe(429);

    // Other assistants keep their own budget.
    const other = await assistantOfNewOwner();
    expect((await send(await start(other.assistant.uuid), newAddress())).status).toBe(200);
  });

  it('leaves paid widget conversations alone', async () => {
    const { assistant } = await assistantOfNewOwner(1);
    const address = newAddress();
    const conversation = await start(assistant.uuid, 'widget');
    for (let i = 0; i < 6; i++) expect((await send(conversation, address)).status).toBe(200);
  });
});
