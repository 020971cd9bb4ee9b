import { setTimeout as sleep } from 'node:timers/promises';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Agent, request as httpRequest, type Dispatcher } from 'undici';
import { LanguageModelError, type ChatEvent, type ChatMessage, type ChatRequest, type LanguageModel, type ToolCall } from './types.ts';

/** The chat-completions request body's message, as the wire spells it. */
function toWire(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content,
        ...(message.toolCalls?.length
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
  }
}

interface ChunkDelta {
  content?: string | null;
  tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[];
}

interface Chunk {
  choices?: { delta?: ChunkDelta; finish_reason?: string | null }[];
  /** Some servers report a failure inside the stream instead of with a status. */
  error?: { message?: string };
}

/** Statuses worth one more try: the provider was busy or failed on its side. */
const RETRYABLE = new Set([408, 409, 429, 500, 502, 503, 504]);
const RETRY_DELAY_MS = 500;
const MAX_RETRY_DELAY_MS = 5000;

function retryDelay(headers: Dispatcher.ResponseData['headers']): number {
  const seconds = Number(headers['retry-after']);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_DELAY_MS) : RETRY_DELAY_MS;
}

async function errorDetail(response: Dispatcher.ResponseData): Promise<string> {
  const text = (await response.body.text().catch(() => '')).slice(0, 1000);
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : parsed.error?.message ?? parsed.message;
    if (typeof message === 'string') return message;
  } catch {
    // not JSON: the text itself says what went wrong
  }
  return text.slice(0, 300) || 'no details';
}

/**
 * Chat completions over the OpenAI wire protocol, which OpenAI, Groq, Together, vLLM, Ollama and llama.cpp's
 * server all speak. Tool calls arrive as fragments spread over chunks and are assembled by index.
 *
 * It talks HTTP through undici's `request` and reads the event stream with `eventsource-parser` rather than
 * through the `openai` SDK, whose fetch-based path cost about 1.7 ms more per call (docs/decisions.md): a
 * spoken or typed turn pays that on every model round.
 */
export class OpenAiCompatibleModel implements LanguageModel {
  private readonly endpoint: string;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  // Idle kept-alive connections do not hold the process open (undici unrefs them).
  private readonly dispatcher = new Agent({ keepAliveTimeout: 30_000 });

  constructor(options: { baseUrl: string; apiKey: string | undefined; timeoutMs: number }) {
    this.endpoint = `${options.baseUrl.replace(/\/+$/, '')}/chat/completions`;
    this.headers = { 'content-type': 'application/json', accept: 'text/event-stream' };
    // Local servers (Ollama, llama.cpp) take no key.
    if (options.apiKey) this.headers.authorization = `Bearer ${options.apiKey}`;
    this.timeoutMs = options.timeoutMs;
  }

  /** Sends the request, trying once more when the provider is unreachable or busy; resolves with a 2xx response. */
  private async send(body: string, signal: AbortSignal | undefined): Promise<Dispatcher.ResponseData> {
    for (let attempt = 1; ; attempt++) {
      const last = attempt === 2;
      let response: Dispatcher.ResponseData;
      try {
        response = await httpRequest(this.endpoint, {
          method: 'POST',
          headers: this.headers,
          body,
          signal,
          dispatcher: this.dispatcher,
          headersTimeout: this.timeoutMs,
          bodyTimeout: this.timeoutMs,
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        if (last) throw new LanguageModelError(`the language model could not be reached: ${(error as Error).message}`);
        await sleep(RETRY_DELAY_MS, undefined, { signal });
        continue;
      }
      if (response.statusCode >= 200 && response.statusCode < 300) return response;
      const detail = await errorDetail(response);
      if (last || !RETRYABLE.has(response.statusCode)) {
        throw new LanguageModelError(`the language model answered ${response.statusCode}: ${detail}`);
      }
      await sleep(retryDelay(response.headers), undefined, { signal });
    }
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatEvent> {
    const response = await this.send(JSON.stringify({
      model: request.model,
      messages: request.messages.map(toWire),
      stream: true,
      ...(request.tools?.length ? { tools: request.tools.map((tool) => ({ type: 'function', function: tool })) } : {}),
      ...(request.toolChoice === undefined ? {} : { tool_choice: { type: 'function', function: { name: request.toolChoice } } }),
      ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
    }), request.signal);

    const calls = new Map<number, ToolCall>();
    let finishReason = 'stop';
    let finished = false;
    const pending: ChatEvent[] = [];
    const onEvent = ({ data }: EventSourceMessage) => {
      if (finished) return;
      if (data === '[DONE]') {
        finished = true;
        return;
      }
      const chunk = JSON.parse(data) as Chunk;
      if (chunk.error) throw new LanguageModelError(`the language model failed: ${chunk.error.message ?? 'no details'}`);
      const choice = chunk.choices?.[0];
      if (!choice) return;
      const delta = choice.delta ?? {};
      if (delta.content) pending.push({ type: 'token', text: delta.content });
      for (const fragment of delta.tool_calls ?? []) {
        const call = calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name) call.name += fragment.function.name;
        if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
        calls.set(fragment.index, call);
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    };
    const parser = createParser({ onEvent });

    try {
      response.body.setEncoding('utf8');
      for await (const text of response.body as AsyncIterable<string>) {
        parser.feed(text);
        yield* pending.splice(0);
      }
    } catch (error) {
      if (error instanceof LanguageModelError || request.signal?.aborted) throw error;
      throw new LanguageModelError(`the language model stream broke off: ${(error as Error).message}`);
    } finally {
      // Read to its end, the connection is kept for the next call; left early, it is closed.
      if (!response.body.readableEnded) response.body.destroy();
    }
    if (calls.size > 0) {
      const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
      yield { type: 'tool_calls', calls: ordered };
    }
    yield { type: 'done', finishReason };
  }
}
