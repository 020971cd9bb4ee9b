import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OpenAiCompatibleModel } from '../../src/providers/llm/openai-compatible.ts';
import type { ChatEvent } from '../../src/providers/llm/types.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { freePort, listenOnLoopback } from '../support/ports.ts';

async function collect(model: OpenAiCompatibleModel): Promise<ChatEvent[]> {
  const events: ChatEvent[] = [];
  for await (const event of model.stream({ model: 'gpt-test', messages: [{ role: 'user', content: 'Hi' }] })) events.push(event);
  return events;
}

/** A server that answers each request with the next of `answers`, recording the request headers. */
async function scriptedServer(answers: ((res: http.ServerResponse) => void)[]) {
  const seen: http.IncomingHttpHeaders[] = [];
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      seen.push(req.headers);
      const answer = answers.shift();
      if (answer) answer(res);
      else res.writeHead(500).end();
    });
  });
  const listening = await listenOnLoopback(server);
  return { baseUrl: `${listening.url}/v1`, seen, close: listening.close };
}

describe('OpenAiCompatibleModel', () => {
  let llm: FakeLlmServer;
  beforeAll(async () => {
    llm = await startFakeLlmServer();
  });
  afterAll(() => llm.close());

  it('streams tokens, then assembles tool calls sent in fragments, then reports the finish', async () => {
    const model = new OpenAiCompatibleModel({ baseUrl: llm.baseUrl, apiKey: 'key', timeoutMs: 5000 });
    llm.script({ reply: 'Hello there' });
    const spoken = await collect(model);
    expect(spoken.filter((event) => event.type === 'token').map((event) => (event.type === 'token' ? event.text : '')).join('')).toBe('Hello there');
    expect(spoken.at(-1)).toEqual({ type: 'done', finishReason: 'stop' });

    llm.script({ toolCalls: [{ name: 'lookup', arguments: { city: 'Paris' } }, { name: 'end_call', arguments: {} }] });
    const called = await collect(model);
    expect(called.filter((event) => event.type === 'token')).toEqual([]);
    expect(called.at(-2)).toEqual({
      type: 'tool_calls',
      calls: [
        { id: expect.any(String), name: 'lookup', arguments: '{"city":"Paris"}' },
        { id: expect.any(String), name: 'end_call', arguments: '{}' },
      ],
    });
    expect(called.at(-1)).toEqual({ type: 'done', finishReason: 'tool_calls' });
  });

  it('tries once more when the provider is busy', async () => {
    const model = new OpenAiCompatibleModel({ baseUrl: llm.baseUrl, apiKey: 'key', timeoutMs: 5000 });
    const before = llm.requests.length;
    llm.script({ status: 503, error: 'overloaded' }, { reply: 'Back again' });
    const events = await collect(model);
    expect(events.some((event) => event.type === 'token' && event.text.includes('Back'))).toBe(true);
    expect(llm.requests.length - before).toBe(2);
  });

  it('says what the provider answered when it refuses, without retrying what cannot succeed', async () => {
    const server = await scriptedServer([
      (res) => res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Incorrect API key provided' } })),
    ]);
    try {
      const model = new OpenAiCompatibleModel({ baseUrl: server.baseUrl, apiKey: 'wrong', timeoutMs: 5000 });
      await expect(collect(model)).rejects.toThrow('the language model answered 401: Incorrect API key provided');
      expect(server.seen).toHaveLength(1);
      expect(server.seen[0]?.authorization).toBe('Bearer wrong');
    } finally {
      await server.close();
    }
  });

  it('sends no Authorization header when no key is configured (local servers)', async () => {
    const server = await scriptedServer([(res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: [DONE]\n\n')]);
    try {
      await collect(new OpenAiCompatibleModel({ baseUrl: server.baseUrl, apiKey: undefined, timeoutMs: 5000 }));
      expect(server.seen[0]?.authorization).toBeUndefined();
    } finally {
      await server.close();
    }
  });

  it('fails with the reason when the stream reports an error or breaks off', async () => {
    const server = await scriptedServer([
      (res) => res.writeHead(200, { 'content-type': 'text/event-stream' }).end('data: {"error":{"message":"context length exceeded"}}\n\n'),
      (res) => {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"delta":{"content":"Hel"}}]}\n\n');
        setTimeout(() => res.destroy(), 20);
      },
    ]);
    try {
      const model = new OpenAiCompatibleModel({ baseUrl: server.baseUrl, apiKey: 'key', timeoutMs: 5000 });
      await expect(collect(model)).rejects.toThrow('the language model failed: context length exceeded');
      await expect(collect(model)).rejects.toThrow(/^the language model stream broke off: /);
    } finally {
      await server.close();
    }
  });

  it('fails clearly when the provider cannot be reached', async () => {
    const model = new OpenAiCompatibleModel({ baseUrl: `http://127.0.0.1:${await freePort()}/v1`, apiKey: 'key', timeoutMs: 5000 });
    await expect(collect(model)).rejects.toThrow(/^the language model could not be reached: /);
  });
});
