import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { listenOnLoopback } from '../support/ports.ts';

/**
 * One scripted model turn: a text reply, tool calls, or an HTTP failure. A streamed reply with `pieceDelayMs`
 * comes slowly: the server waits that long before each piece after the first, or until the client leaves.
 */
export type FakeTurn =
  | { reply: string; pieceDelayMs?: number }
  | { toolCalls: { name: string; arguments: Record<string, unknown> | string }[] }
  | { status: number; error: string };

export interface ChatCompletionRequest {
  model: string;
  stream?: boolean;
  temperature?: number;
  messages: { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
  tools?: { type: 'function'; function: { name: string; description: string; parameters: Record<string, unknown> } }[];
  tool_choice?: { type: 'function'; function: { name: string } };
}

/** What the caller said last in a request: the text of its last user message ('' for none). */
export function lastUserText(request: ChatCompletionRequest): string {
  return request.messages.findLast((message) => message.role === 'user')?.content ?? '';
}

export interface FakeLlmServer {
  baseUrl: string;
  /** Every request received, in order. */
  requests: ChatCompletionRequest[];
  /** Milliseconds spent answering each request, from its body's arrival to the response's end, by its last user message. */
  timings: Map<string, number>;
  /** Queues turns, answered in order; `respond` decides when the queue is empty. */
  script(...turns: FakeTurn[]): void;
  respond(decide: (request: ChatCompletionRequest) => FakeTurn): void;
  /** Resolves with the next request whose client closes the connection before the answer is complete. */
  nextAbort(): Promise<ChatCompletionRequest>;
  close(): Promise<void>;
}

function sse(response: http.ServerResponse, payload: unknown): void {
  response.write(`data: ${JSON.stringify(payload)}\n\n`);
}

/** Waits `ms`, or less when the response closes first. */
function pause(ms: number, response: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      response.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    response.once('close', done);
  });
}

/**
 * A local server speaking OpenAI's chat-completions protocol: streamed `chat.completion.chunk` events with
 * content split into small pieces, tool calls sent as fragments (name first, arguments in parts) the way real
 * providers send them, `[DONE]` at the end; or one JSON completion when not streaming.
 */
export async function startFakeLlmServer(options: { latencyMs?: number; chunkSize?: number } = {}): Promise<FakeLlmServer> {
  const queue: FakeTurn[] = [];
  const requests: ChatCompletionRequest[] = [];
  const timings = new Map<string, number>();
  const aborts = new EventEmitter();
  let decide: ((request: ChatCompletionRequest) => FakeTurn) | undefined;
  const chunkSize = options.chunkSize ?? 4;
  let counter = 0;

  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => { raw += chunk.toString(); });
    req.on('end', () => {
      void (async () => {
        if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
          return;
        }
        const request = JSON.parse(raw) as ChatCompletionRequest;
        requests.push(request);
        const received = performance.now();
        const lastUser = request.messages.filter((message) => message.role === 'user').at(-1)?.content ?? '';
        res.once('finish', () => timings.set(lastUser, performance.now() - received));
        res.once('close', () => {
          if (!res.writableFinished) aborts.emit('abort', request);
        });
        const turn = queue.shift() ?? decide?.(request) ?? { reply: 'OK' };
        if (options.latencyMs) await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
        if ('status' in turn) {
          res.writeHead(turn.status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: turn.error, type: 'server_error' } }));
          return;
        }
        const id = `chatcmpl-${++counter}`;
        const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.model };
        const toolCalls = 'toolCalls' in turn
          ? turn.toolCalls.map((call, index) => ({
            id: `call_${counter}_${index}`,
            name: call.name,
            arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments),
          }))
          : [];
        const content = 'reply' in turn ? turn.reply : '';

        if (!request.stream) {
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
            id, object: 'chat.completion', created: base.created, model: request.model,
            choices: [{
              index: 0,
              finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
              message: {
                role: 'assistant',
                content: toolCalls.length ? null : content,
                ...(toolCalls.length ? { tool_calls: toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) } : {}),
              },
            }],
          }));
          return;
        }

        res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
        sse(res, { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] });
        const delay = 'pieceDelayMs' in turn ? turn.pieceDelayMs : undefined;
        for (let i = 0; i < content.length; i += chunkSize) {
          if (delay && i > 0) await pause(delay, res);
          if (res.destroyed) return;
          sse(res, { ...base, choices: [{ index: 0, delta: { content: content.slice(i, i + chunkSize) }, finish_reason: null }] });
        }
        toolCalls.forEach((call, index) => {
          sse(res, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null }] });
          for (let i = 0; i < call.arguments.length; i += chunkSize) {
            sse(res, { ...base, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: call.arguments.slice(i, i + chunkSize) } }] }, finish_reason: null }] });
          }
        });
        sse(res, { ...base, choices: [{ index: 0, delta: {}, finish_reason: toolCalls.length ? 'tool_calls' : 'stop' }] });
        res.end('data: [DONE]\n\n');
      })();
    });
  });
  const { url, close } = await listenOnLoopback(server);
  return {
    baseUrl: `${url}/v1`,
    requests,
    timings,
    script: (...turns) => { queue.push(...turns); },
    respond: (fn) => { decide = fn; },
    nextAbort: async () => ((await once(aborts, 'abort')) as [ChatCompletionRequest])[0],
    close,
  };
}
