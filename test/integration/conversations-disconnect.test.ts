import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { listenOnLoopback } from '../support/ports.ts';

/** A tool endpoint that never answers: it tells when a request arrives and when its caller gives up on it. */
async function startStuckEndpoint() {
  const events = new EventEmitter();
  const server = http.createServer((req, res) => {
    events.emit('request');
    res.once('close', () => events.emit('closed'));
  });
  return { ...await listenOnLoopback(server), events };
}

/** Reads server-sent events until one named `name` has arrived; the text of the tokens read by then. */
async function readUntil(response: Response, name: string): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let tokens = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the stream ended before a ${name} event`);
    buffer += value;
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const [event, data] = buffer.slice(0, end).split('\n');
      buffer = buffer.slice(end + 2);
      if (event === 'event: token') tokens += (JSON.parse(data!.slice('data: '.length)) as { text: string }).text;
      if (event === `event: ${name}`) {
        reader.releaseLock();
        return tokens;
      }
    }
  }
}

describe('a conversation whose client goes away mid-turn', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let stuck: Awaited<ReturnType<typeof startStuckEndpoint>>;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    stuck = await startStuckEndpoint();
    platform = await startTestPlatform({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
    await stuck.close();
  });

  const balance = async (user: TestUser) => (await platform.request('GET', '/user/me', { token: user.token })).body.total_balance as number;
  const history = async (uuid: string) => (await platform.request('GET', `/conversations/${uuid}`)).body.history as unknown[];
  const post = (uuid: string, message: string, accept: string, signal: AbortSignal) => fetch(`${platform.baseUrl}/api/conversations/${uuid}/messages`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept }, body: JSON.stringify({ message }), signal,
  });

  /** A widget conversation (charged) with an assistant whose one tool never answers. */
  async function widgetConversation(): Promise<{ owner: TestUser; uuid: string }> {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 1 });
    const tool = await platform.request('POST', '/user/tools', {
      token: owner.token,
      body: { name: 'slow_lookup', description: 'Looks things up, slowly', endpoint: `${stuck.url}/lookup`, method: 'GET', schema: [] },
    });
    const assistant = await createTestAssistant(platform, owner, { tool_ids: [tool.body.data.id] });
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } });
    return { owner, uuid: started.body.conversation_id as string };
  }

  it('stops the model request, and the stored reply holds only what was sent before the disconnect', async () => {
    const { owner, uuid } = await widgetConversation();
    // The first piece comes at once; the next only after a minute, unless the request is closed before.
    llm.script({ reply: 'Sure, we open at nine and close at five on weekdays.', pieceDelayMs: 60_000 });
    const aborted = llm.nextAbort();
    const client = new AbortController();
    const response = await post(uuid, 'When are you open?', 'text/event-stream', client.signal);
    const sent = await readUntil(response, 'token');
    client.abort();

    expect((await aborted).messages.at(-1)).toEqual({ role: 'user', content: 'When are you open?' });
    expect(sent).toBe('Sure');
    await vi.waitFor(async () => expect(await history(uuid)).toHaveLength(3), { timeout: 10_000, interval: 20 });
    expect(await history(uuid)).toEqual([
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'When are you open?' },
      { role: 'assistant', content: 'Sure' },
    ]);
    expect(await balance(owner)).toBe(0.99);
  });

  it('stops a running tool and undoes the message, refunded, when nothing of the answer was sent', async () => {
    const { owner, uuid } = await widgetConversation();
    llm.script({ toolCalls: [{ name: 'slow_lookup', arguments: {} }] });
    const arrived = once(stuck.events, 'request');
    const closed = once(stuck.events, 'closed');
    const client = new AbortController();
    // The stream's headers go out with its first event, which here never comes.
    const response = post(uuid, 'Look it up', 'text/event-stream', client.signal);
    await arrived;
    expect(await balance(owner)).toBe(0.99);
    client.abort();

    await expect(response).rejects.toThrow(/abort/i);
    await closed;
    await vi.waitFor(async () => expect(await history(uuid)).toEqual([{ role: 'assistant', content: 'Hello!' }]), { timeout: 10_000, interval: 20 });
    expect(await balance(owner)).toBe(1);
    expect(llm.requests.at(-1)?.messages.at(-1)).toEqual({ role: 'user', content: 'Look it up' });
  });

  it('stops the turn of a JSON request too, which has sent nothing before its end', async () => {
    const { owner, uuid } = await widgetConversation();
    llm.script({ toolCalls: [{ name: 'slow_lookup', arguments: {} }] });
    const arrived = once(stuck.events, 'request');
    const closed = once(stuck.events, 'closed');
    const client = new AbortController();
    const response = post(uuid, 'Look it up', 'application/json', client.signal);
    await arrived;
    client.abort();

    await expect(response).rejects.toThrow(/abort/i);
    await closed;
    await vi.waitFor(async () => expect(await history(uuid)).toEqual([{ role: 'assistant', content: 'Hello!' }]), { timeout: 10_000, interval: 20 });
    expect(await balance(owner)).toBe(1);
  });
});
