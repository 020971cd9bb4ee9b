import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endCallTool, httpTool, knowledgeTool } from '../../src/agent/tools.ts';
import { AgentTurn, type TurnEvent, type TurnOptions } from '../../src/agent/turn.ts';
import { createSafeFetch } from '../../src/lib/safe-fetch.ts';
import { OpenAiCompatibleModel } from '../../src/providers/llm/openai-compatible.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { listenOnLoopback } from '../support/ports.ts';

/** A tool endpoint on loopback: /weather answers JSON, /broken answers 500, /slow never in time. */
async function startToolServer(): Promise<{ url: string; seen: { method: string; url: string; body: string; auth: string | undefined }[]; close(): Promise<void> }> {
  const seen: { method: string; url: string; body: string; auth: string | undefined }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => {
      seen.push({ method: req.method ?? '', url: req.url ?? '', body, auth: req.headers.authorization });
      if (req.url?.startsWith('/weather')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ temperature_c: 21, sky: 'clear' }));
      } else if (req.url?.startsWith('/broken')) {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'database offline' }));
      } else {
        setTimeout(() => res.writeHead(200).end('late'), 3000);
      }
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return { url, seen, close };
}

/** Iterates a turn to its end; the result with the events it streamed. */
async function runTurn(options: Omit<TurnOptions, 'signal' | 'now'>) {
  const turn = new AgentTurn({ ...options, signal: new AbortController().signal, now: () => performance.now() });
  const events: TurnEvent[] = [];
  for await (const event of turn) events.push(event);
  return { result: turn.result, events };
}

describe('an agent turn against an OpenAI-compatible server', () => {
  let llm: FakeLlmServer;
  let tools: Awaited<ReturnType<typeof startToolServer>>;
  let model: OpenAiCompatibleModel;
  const safeFetch = createSafeFetch({ allowHosts: ['127.0.0.1'], timeoutMs: 5000, maxBytes: 1024 * 1024, userAgent: 'Parley-test' });

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    tools = await startToolServer();
    model = new OpenAiCompatibleModel({ baseUrl: llm.baseUrl, apiKey: 'test-key', timeoutMs: 5000 });
  });
  afterAll(async () => {
    await llm.close();
    await tools.close();
  });

  it('streams the reply token by token', async () => {
    llm.script({ reply: 'Hello there, how can I help?' });
    const { result, events } = await runTurn({
      model, modelName: 'gpt-test', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], tools: [],
    });
    expect(result).toEqual({ delivered: 'Hello there, how can I help?', functionCalls: [], endCall: false });
    const tokens = events.filter((event) => event.type === 'token');
    expect(tokens.length).toBeGreaterThan(3);
    expect(tokens.map((event) => (event.type === 'token' ? event.text : '')).join('')).toBe(result.delivered);
    expect(llm.requests.at(-1)?.messages).toEqual([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }]);
  });

  it('runs two tool calls of one step in parallel, one failing, and gives both results to the model', async () => {
    const weather = httpTool({
      name: 'get_weather', description: 'Weather for a city', endpoint: `${tools.url}/weather/{city}`, method: 'GET', timeoutSeconds: 5,
      headers: [{ name: 'Authorization', value: 'Bearer tool-secret' }],
      parameters: [{ name: 'city', type: 'string', description: 'City' }, { name: 'units', type: 'string', description: 'Units' }],
    }, safeFetch);
    const broken = httpTool({
      name: 'check_stock', description: 'Stock level', endpoint: `${tools.url}/broken`, method: 'POST', timeoutSeconds: 5, headers: [],
      parameters: [{ name: 'sku', type: 'string', description: 'SKU' }],
    }, safeFetch);
    llm.script(
      { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris', units: 'metric' } }, { name: 'check_stock', arguments: { sku: 'X1' } }] },
      { reply: 'It is 21°C and clear in Paris; stock is unavailable right now.' },
    );
    const { result, events } = await runTurn({
      model, modelName: 'gpt-test', messages: [{ role: 'user', content: 'Weather in Paris and stock of X1?' }], tools: [weather, broken],
    });
    expect(result.delivered).toBe('It is 21°C and clear in Paris; stock is unavailable right now.');
    expect(result.functionCalls).toEqual([
      { name: 'get_weather', arguments: { city: 'Paris', units: 'metric' }, result: { temperature_c: 21, sky: 'clear' } },
      { name: 'check_stock', arguments: { sku: 'X1' }, result: { error: 'the endpoint answered HTTP 500', status: 500, body: { error: 'database offline' } } },
    ]);
    expect(events.filter((event) => event.type === 'tool_finished')).toHaveLength(2);
    expect(tools.seen).toEqual(expect.arrayContaining([
      { method: 'GET', url: '/weather/Paris?units=metric', body: '', auth: 'Bearer tool-secret' },
      { method: 'POST', url: '/broken', body: '{"sku":"X1"}', auth: undefined },
    ]));
    const request = llm.requests.at(-2);
    expect(request?.tools?.map((tool) => tool.function.name)).toEqual(['get_weather', 'check_stock']);
    expect(request?.tools?.[0]?.function.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'City' }, units: { type: 'string', description: 'Units' } },
      required: ['city', 'units'],
      additionalProperties: false,
    });
    const followUp = llm.requests.at(-1)?.messages ?? [];
    expect(followUp.filter((message) => message.role === 'tool')).toHaveLength(2);
  });

  it('gives a slow tool an error result instead of failing the turn', async () => {
    const slow = httpTool({ name: 'slow_lookup', description: 'Slow', endpoint: `${tools.url}/slow`, method: 'GET', timeoutSeconds: 1, headers: [], parameters: [] }, safeFetch);
    llm.script({ toolCalls: [{ name: 'slow_lookup', arguments: {} }] }, { reply: 'Sorry, that lookup timed out.' });
    const { result } = await runTurn({ model, modelName: 'gpt-test', messages: [{ role: 'user', content: 'Look it up' }], tools: [slow] });
    expect(result.delivered).toBe('Sorry, that lookup timed out.');
    expect(result.functionCalls[0]?.result).toEqual({ error: expect.stringMatching(/did not answer within 1 s/) });
  });

  it('refuses a tool endpoint on a private address that is not allowed', async () => {
    const strictFetch = createSafeFetch({ allowHosts: [], timeoutMs: 2000, maxBytes: 1024, userAgent: 'Parley-test' });
    const internal = httpTool({ name: 'internal', description: 'x', endpoint: `${tools.url}/weather/x`, method: 'GET', timeoutSeconds: 2, headers: [], parameters: [] }, strictFetch);
    const before = tools.seen.length;
    llm.script({ toolCalls: [{ name: 'internal', arguments: {} }] }, { reply: 'I could not reach it.' });
    const { result } = await runTurn({ model, modelName: 'gpt-test', messages: [{ role: 'user', content: 'go' }], tools: [internal] });
    expect(result.functionCalls[0]?.result).toEqual({ error: expect.any(String) });
    expect(tools.seen.length).toBe(before);
  });

  it('reports malformed arguments and unknown functions to the model, and ends on end_call', async () => {
    const search = knowledgeTool((query) => Promise.resolve([{ documentName: 'faq.txt', text: `About ${query}: open 9 to 5.`, score: 1 }]));
    llm.script(
      { toolCalls: [{ name: 'search_knowledge_base', arguments: '{"query": "hours"' }, { name: 'nope', arguments: {} }] },
      { toolCalls: [{ name: 'search_knowledge_base', arguments: { query: 'hours' } }, { name: 'end_call', arguments: {} }] },
      { reply: 'We are open 9 to 5. Goodbye!' },
    );
    const { result } = await runTurn({ model, modelName: 'gpt-test', messages: [{ role: 'user', content: 'Hours? bye' }], tools: [search, endCallTool()] });
    expect(result.endCall).toBe(true);
    expect(result.functionCalls.map((call) => call.name)).toEqual(['search_knowledge_base', 'nope', 'search_knowledge_base', 'end_call']);
    expect(result.functionCalls[0]?.result).toEqual({ error: expect.stringContaining('not valid JSON') });
    expect(result.functionCalls[1]?.result).toEqual({ error: 'there is no function named nope' });
    expect(result.functionCalls[2]?.result).toEqual({ passages: [{ source: 'faq.txt', text: 'About hours: open 9 to 5.' }] });
  });

  it('bounds the loop: after the last allowed round the model must answer without functions', async () => {
    const echo = { definition: { name: 'echo', description: 'echo', parameters: { type: 'object', properties: {} } }, execute: () => Promise.resolve('again') };
    llm.respond((request) => (request.tools ? { toolCalls: [{ name: 'echo', arguments: {} }] } : { reply: 'Done looping.' }));
    const { result } = await runTurn({ model, modelName: 'gpt-test', messages: [{ role: 'user', content: 'loop' }], tools: [echo], maxToolRounds: 3 });
    expect(result.delivered).toBe('Done looping.');
    expect(result.functionCalls).toHaveLength(3);
    llm.respond(() => ({ reply: 'OK' }));
  });

  it('fails the turn with a LanguageModelError when the provider fails', async () => {
    llm.script({ status: 500, error: 'overloaded' }, { status: 500, error: 'overloaded' });
    await expect(runTurn({ model, modelName: 'gpt-test', messages: [{ role: 'user', content: 'x' }], tools: [] }))
      .rejects.toThrow(/language model/);
  });
});
