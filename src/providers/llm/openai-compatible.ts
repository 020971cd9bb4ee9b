import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { LanguageModelError, type ChatEvent, type ChatMessage, type ChatRequest, type LanguageModel, type ToolCall } from './types.ts';

function toWire(message: ChatMessage): ChatCompletionMessageParam {
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
          ? { tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })) }
          : {}),
      };
  }
}

/**
 * Chat completions over the OpenAI wire protocol, which OpenAI, Groq, Together, vLLM, Ollama and llama.cpp's
 * server all speak. Tool calls arrive as fragments spread over chunks and are assembled by index.
 */
export class OpenAiCompatibleModel implements LanguageModel {
  private readonly client: OpenAI;

  constructor(options: { baseUrl: string; apiKey: string; timeoutMs: number }) {
    this.client = new OpenAI({ baseURL: options.baseUrl, apiKey: options.apiKey, timeout: options.timeoutMs, maxRetries: 1 });
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatEvent> {
    let stream;
    try {
      stream = await this.client.chat.completions.create({
        model: request.model,
        messages: request.messages.map(toWire),
        stream: true,
        ...(request.tools?.length
          ? { tools: request.tools.map((tool) => ({ type: 'function' as const, function: tool })) }
          : {}),
        ...(request.temperature === undefined ? {} : { temperature: request.temperature }),
      }, { signal: request.signal });
    } catch (error) {
      throw new LanguageModelError(`the language model refused the request: ${(error as Error).message}`);
    }

    const calls = new Map<number, ToolCall>();
    let finishReason = 'stop';
    try {
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (!choice) continue;
        const { delta } = choice;
        if (delta.content) yield { type: 'token', text: delta.content };
        for (const fragment of delta.tool_calls ?? []) {
          const call = calls.get(fragment.index) ?? { id: '', name: '', arguments: '' };
          if (fragment.id) call.id = fragment.id;
          if (fragment.function?.name) call.name += fragment.function.name;
          if (fragment.function?.arguments) call.arguments += fragment.function.arguments;
          calls.set(fragment.index, call);
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (error) {
      throw new LanguageModelError(`the language model stream broke off: ${(error as Error).message}`);
    }
    if (calls.size > 0) {
      const ordered = [...calls.entries()].sort(([a], [b]) => a - b).map(([index, call]) => ({ ...call, id: call.id || `call_${index}` }));
      yield { type: 'tool_calls', calls: ordered };
    }
    yield { type: 'done', finishReason };
  }
}
