import { LanguageModelError, type ChatMessage, type FunctionDefinition, type LanguageModel, type ToolCall } from '../providers/llm/types.ts';

/** A function the model may call during a turn. */
export interface AgentTool {
  definition: FunctionDefinition;
  /** Runs the call; a thrown error becomes an error result for the model, never a failed turn. */
  execute(args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Calling it ends the conversation (the end-call tool). */
  ends?: boolean;
}

/** As the interface records a call on a message: `{name, arguments, result}`. */
export interface FunctionCallRecord {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
}

export type AgentEvent =
  | { type: 'token'; text: string }
  | { type: 'tool_call'; call: FunctionCallRecord };

export interface TurnOptions {
  model: LanguageModel;
  modelName: string;
  temperature?: number;
  /** The whole input: system prompt, history, and the new user message. */
  messages: ChatMessage[];
  tools: AgentTool[];
  /** Rounds of tool calls allowed before the model must answer in words. */
  maxToolRounds?: number;
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
}

export interface TurnResult {
  reply: string;
  functionCalls: FunctionCallRecord[];
  /** The model called the end-call tool. */
  ended: boolean;
}

function parseArguments(raw: string): { args: Record<string, unknown>; error?: string } {
  if (raw.trim() === '') return { args: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { args: parsed as Record<string, unknown> };
    return { args: {}, error: 'the arguments must be a JSON object' };
  } catch {
    return { args: {}, error: `the arguments are not valid JSON: ${raw.slice(0, 200)}` };
  }
}

async function runCall(call: ToolCall, tools: Map<string, AgentTool>, signal: AbortSignal): Promise<FunctionCallRecord & { ends: boolean }> {
  const { args, error } = parseArguments(call.arguments);
  const tool = tools.get(call.name);
  if (!tool) return { name: call.name, arguments: args, result: { error: `there is no function named ${call.name}` }, ends: false };
  if (error) return { name: call.name, arguments: args, result: { error }, ends: false };
  try {
    return { name: call.name, arguments: args, result: (await tool.execute(args, signal)) ?? null, ends: tool.ends === true };
  } catch (failure) {
    return { name: call.name, arguments: args, result: { error: (failure as Error).message }, ends: false };
  }
}

/**
 * One turn of the dialogue: the model answers, calling functions as it asks (several at once run in
 * parallel) and seeing their results, until it answers in words. After `maxToolRounds` rounds it is asked
 * once more without functions, so a turn always ends.
 */
export async function runAgentTurn(options: TurnOptions): Promise<TurnResult> {
  const maxRounds = options.maxToolRounds ?? 5;
  const tools = new Map(options.tools.map((tool) => [tool.definition.name, tool]));
  const messages = [...options.messages];
  const functionCalls: FunctionCallRecord[] = [];
  const signal = options.signal ?? new AbortController().signal;
  let ended = false;

  for (let round = 0; ; round++) {
    const offerTools = round < maxRounds && tools.size > 0;
    let text = '';
    let calls: ToolCall[] = [];
    for await (const event of options.model.stream({
      model: options.modelName,
      messages,
      ...(offerTools ? { tools: options.tools.map((tool) => tool.definition) } : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      signal,
    })) {
      if (event.type === 'token') {
        text += event.text;
        options.onEvent?.({ type: 'token', text: event.text });
      } else if (event.type === 'tool_calls') {
        calls = event.calls;
      }
    }
    if (calls.length === 0 || !offerTools) {
      if (!text.trim() && calls.length === 0 && functionCalls.length === 0) throw new LanguageModelError('the language model returned an empty answer');
      return { reply: text, functionCalls, ended };
    }

    messages.push({ role: 'assistant', content: text || null, toolCalls: calls });
    const results = await Promise.all(calls.map((call) => runCall(call, tools, signal)));
    results.forEach((record, index) => {
      const { ends, ...call } = record;
      if (ends) ended = true;
      functionCalls.push(call);
      options.onEvent?.({ type: 'tool_call', call });
      messages.push({ role: 'tool', toolCallId: calls[index]?.id ?? '', content: JSON.stringify(call.result) });
    });
  }
}
