import diagnostics from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { recordEntry } from '../../src/billing/ledger.ts';
import { earlyModelRequests } from '../../src/lib/metrics.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';
import { lastUserText, startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';

/** The early requests counted so far, by outcome. */
async function earlyCounts(): Promise<{ taken: number; abandoned: number }> {
  const values = (await earlyModelRequests.get()).values;
  const count = (outcome: string) => values.find((value) => value.labels.outcome === outcome)?.value ?? 0;
  return { taken: count('taken'), abandoned: count('abandoned') };
}

describe("a chat turn's model request, sent while its message is stored", () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond((request) => ({ reply: `Re: ${lastUserText(request)}` }));
    platform = await startTestPlatform({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  const knex = () => platform.database.knex;
  const send = (uuid: string, message: string) => platform.request('POST', `/conversations/${uuid}/messages`, { body: { message } });
  const history = async (uuid: string) => (await platform.request('GET', `/conversations/${uuid}`)).body.history as { role: string; content: string }[];
  async function newConversation() {
    const owner = await createTestUser(knex(), { balanceUsd: 1 });
    const assistant = await createTestAssistant(platform, owner, { system_prompt: 'Be brief.' });
    const { body } = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } });
    return { owner, assistant, uuid: body.conversation_id as string };
  }

  it('asks the model before the message is stored, and answers with that request: one a turn', async () => {
    const { uuid } = await newConversation();
    const before = { requests: llm.requests.length, early: await earlyCounts() };
    // The conversation's row locked: the message's statement waits, and the model is asked all the same.
    const lock = await knex().transaction();
    let replied: ReturnType<typeof send> | undefined;
    try {
      await lock('conversations').where({ uuid }).forUpdate().first('id');
      replied = send(uuid, 'first question');
      await vi.waitFor(() => expect(llm.requests.length).toBe(before.requests + 1));
      expect(lastUserText(llm.requests.at(-1)!)).toBe('first question');
      expect(await lock('conversation_messages').join('conversations', 'conversations.id', 'conversation_messages.conversation_id')
        .where({ uuid, role: 'user' }).count<{ count: number }[]>({ count: '*' })).toEqual([{ count: 0 }]);
    } finally {
      await lock.commit();
    }
    expect((await replied).body).toEqual({ status: true, message: 'Re: first question', function_calls: [] });
    expect((await send(uuid, 'second question')).body.message).toBe('Re: second question');
    // Each turn asked once, with what the statement read: the system prompt, the opening and the turns before.
    expect(llm.requests.length).toBe(before.requests + 2);
    expect(llm.requests.at(-1)!.messages.map((message) => message.content)).toEqual([
      'Be brief.', 'Hello!', 'first question', 'Re: first question', 'second question',
    ]);
    expect(await earlyCounts()).toEqual({ taken: before.early.taken + 2, abandoned: before.early.abandoned });
    expect(await history(uuid)).toHaveLength(5);
  });

  it("writes the model's request before the message's statement, whose write would hold it back", async () => {
    const { uuid } = await newConversation();
    await send(uuid, 'hello');
    const order: string[] = [];
    const onHeaders = ({ request }: { request: { path: string } }) => {
      if (request.path.endsWith('/chat/completions')) order.push('model request');
    };
    const onQuery = ({ sql }: { sql: string }) => {
      if (sql.includes("select conversation_id, 'user'")) order.push('message statement');
    };
    diagnostics.subscribe('undici:client:sendHeaders', onHeaders as (message: unknown) => void);
    knex().on('query', onQuery);
    try {
      expect((await send(uuid, 'and then?')).body.message).toBe('Re: and then?');
    } finally {
      diagnostics.unsubscribe('undici:client:sendHeaders', onHeaders as (message: unknown) => void);
      knex().off('query', onQuery);
    }
    expect(order).toEqual(['model request', 'message statement']);
  });

  it('abandons the early request when the assistant changed, asks afresh, and sends the next one early again', async () => {
    const { owner, assistant, uuid } = await newConversation();
    await send(uuid, 'hello');
    expect((await platform.request('PUT', `/user/assistant/${assistant.id}`, { token: owner.token, body: { system_prompt: 'Be very brief.' } })).status).toBe(200);
    const before = await earlyCounts();
    expect((await send(uuid, 'and now?')).body.message).toBe('Re: and now?');
    // The early request may be stopped before it reaches the model; the turn's own one is the last.
    expect(llm.requests.at(-1)!.messages[0]).toEqual({ role: 'system', content: 'Be very brief.' });
    expect(await earlyCounts()).toEqual({ taken: before.taken, abandoned: before.abandoned + 1 });
    await send(uuid, 'thanks');
    expect(await earlyCounts()).toEqual({ taken: before.taken + 1, abandoned: before.abandoned + 1 });
  });

  it('abandons the early request when another process wrote to the conversation, and sends none early for it again', async () => {
    const { uuid } = await newConversation();
    await send(uuid, 'hello');
    // An operator answers through another API process: this one's memory of the history misses that message.
    const { id } = await knex()('conversations').where({ uuid }).first<{ id: number }>('id');
    await knex()('conversation_messages').insert({ conversationId: id, role: 'assistant', content: 'Maria here.', human: true });
    const before = await earlyCounts();
    expect((await send(uuid, 'who is Maria?')).body.message).toBe('Re: who is Maria?');
    expect(llm.requests.at(-1)!.messages.map((message) => message.content)).toEqual(['Be brief.', 'Hello!', 'hello', 'Re: hello', 'Maria here.', 'who is Maria?']);
    // Its messages may go to several processes: sending each early from a history that misses the others' would
    // waste a request a turn.
    expect((await send(uuid, 'thanks')).body.message).toBe('Re: thanks');
    expect(await earlyCounts()).toEqual({ taken: before.taken, abandoned: before.abandoned + 1 });
    expect((await history(uuid)).map((message) => message.content)).toEqual([
      'Hello!', 'hello', 'Re: hello', 'Maria here.', 'who is Maria?', 'Re: who is Maria?', 'thanks', 'Re: thanks',
    ]);
  });

  it('stops the early request of a message refused for the balance, and sends none early until a turn goes through', async () => {
    const { owner, uuid } = await newConversation();
    await send(uuid, 'hello');
    await recordEntry(knex(), { userId: owner.id, amountMicros: -990_000, kind: 'adjustment', reference: 'test', description: 'Spend it all', idempotencyKey: `spend-${uuid}` });
    const before = { requests: llm.requests.length, early: await earlyCounts() };
    expect((await send(uuid, 'still there?')).status).toBe(400);
    expect((await send(uuid, 'hello again?')).status).toBe(400);
    expect(llm.requests.slice(before.requests).map(lastUserText)).not.toContain('hello again?');
    expect(await earlyCounts()).toEqual({ taken: before.early.taken, abandoned: before.early.abandoned + 1 });
    expect((await history(uuid)).map((message) => message.content)).toEqual(['Hello!', 'hello', 'Re: hello']);

    await recordEntry(knex(), { userId: owner.id, amountMicros: 1_000_000, kind: 'adjustment', reference: 'test', description: 'Top up', idempotencyKey: `top-up-${uuid}` });
    expect((await send(uuid, 'back')).body.message).toBe('Re: back');
    expect((await send(uuid, 'again')).body.message).toBe('Re: again');
    expect(await earlyCounts()).toEqual({ taken: before.early.taken + 1, abandoned: before.early.abandoned + 1 });
  });
});
