/** The language model interface the agent core talks to, independent of any vendor SDK. */

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: JSON text, possibly malformed. */
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; content: string };

export interface FunctionDefinition {
  name: string;
  description: string;
  /** A JSON Schema object describing the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  /** The provider's own model name. */
  model: string;
  messages: ChatMessage[];
  tools?: FunctionDefinition[];
  /** The name of one of `tools` the model must call, instead of choosing whether to call any. */
  toolChoice?: string;
  temperature?: number;
  signal?: AbortSignal;
}

export type ChatEvent =
  | { type: 'token'; text: string }
  | { type: 'tool_calls'; calls: ToolCall[] }
  | { type: 'done'; finishReason: string };

export interface LanguageModel {
  /** Streams one model response: text tokens as they come, then the complete tool calls, then done. */
  stream(request: ChatRequest): AsyncIterable<ChatEvent>;
}

/** The provider failed or answered something unusable; the text is safe to show to the caller. */
export class LanguageModelError extends Error {
  override name = 'LanguageModelError';
}
