import { LanguageModelError, type ChatMessage, type ChatRequest, type FunctionDefinition, type LanguageModel, type ToolCall } from '../providers/llm/types.ts';
import { untilAborted } from '../lib/abort.ts';
import type { Handoff } from './ports.ts';
import { SentenceSplitter } from './sentences.ts';

/** A function the model may call during a turn. */
export interface AgentTool {
  definition: FunctionDefinition;
  /** Runs the call; a thrown error becomes an error result for the model, never a failed turn. */
  execute(args: Record<string, unknown>, signal: AbortSignal): Promise<unknown>;
  /** Calling it asks to end the conversation (the end-call tool, a transfer). */
  ends?: boolean;
  /** For a tool that ends the conversation by handing it over: to whom, from the call's arguments (after `execute` succeeded). */
  handoff?: (args: Record<string, unknown>) => Handoff;
  /** It waits on the phone line (the caller's keys): no filler is spoken over it. */
  onLine?: boolean;
}

/** As the interface records a call on a message: `{name, arguments, result}`. */
export interface FunctionCallRecord {
  name: string;
  arguments: Record<string, unknown>;
  result: unknown;
}

/** What a turn streams, in the order it happens. */
export type TurnEvent =
  /** A piece of the reply as the model writes it. */
  | { type: 'token'; text: string }
  /** A sentence of the reply (or a bounded run of text without one), ready for speech; after the token completing it. */
  | { type: 'sentence'; text: string }
  /** Calls of one model step run in parallel: all of them start, then they finish in the order the model made them. */
  | { type: 'tool_started'; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_finished'; call: FunctionCallRecord; durationMs: number }
  /** The model called the end-call tool or a transfer (`handoff`); the turn goes on to the model's closing words. */
  | { type: 'end_call'; handoff?: Handoff };

export interface TurnOptions {
  model: LanguageModel;
  modelName: string;
  temperature?: number;
  /** The whole input: system prompt, history, and the new user message. */
  messages: ChatMessage[];
  tools: AgentTool[];
  /** Rounds of tool calls allowed before the model must answer in words. */
  maxToolRounds?: number;
  /** Stops the model request, the running tools and their retrievals at once; the turn then throws its reason. */
  signal: AbortSignal;
  /** Milliseconds on a monotonic clock, to time the tool calls. */
  now: () => number;
  /** Hand out the reply's first clause as soon as it is complete (sentences.ts): for speech, not for text. */
  firstClause?: boolean;
  /**
   * Tool calls wait for this before they run: a reply drafted while the caller pauses streams its words, but
   * acts on nothing until the caller's turn is committed.
   */
  toolGate?: Promise<void>;
}

export interface TurnResult {
  /**
   * The model's answer as far as the consumer took it: the whole answer once the turn has been iterated to its
   * end, the part taken when it was aborted or left early. Text the model wrote before a round of tool calls
   * is streamed but is not part of the answer.
   */
  delivered: string;
  /** The calls that finished, in the order the model made them. */
  functionCalls: FunctionCallRecord[];
  /** The model called the end-call tool, or a transfer. */
  endCall: boolean;
  /** Where the conversation goes once it ends here: the first transfer the model called. */
  handoff?: Handoff;
}

interface CallOutcome {
  result: unknown;
  ends: boolean;
  handoff?: Handoff;
}

interface RunningCall {
  name: string;
  args: Record<string, unknown>;
  /** Never rejects: a failure is the call's result. */
  done: Promise<CallOutcome & { durationMs: number }>;
}

/** A tool call's JSON arguments as an object, or why they are not one. */
export function parseArguments(raw: string): { args: Record<string, unknown>; error?: string } {
  if (raw.trim() === '') return { args: {} };
  try {
    const parsed: unknown = JSON.parse(raw);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return { args: parsed as Record<string, unknown> };
    return { args: {}, error: 'the arguments must be a JSON object' };
  } catch {
    return { args: {}, error: `the arguments are not valid JSON: ${raw.slice(0, 200)}` };
  }
}

function startCall(call: ToolCall, tools: Map<string, AgentTool>, options: TurnOptions): RunningCall {
  const { args, error } = parseArguments(call.arguments);
  const tool = tools.get(call.name);
  const started = options.now();
  const run = async (): Promise<CallOutcome> => {
    if (!tool) return { result: { error: `there is no function named ${call.name}` }, ends: false };
    if (error) return { result: { error }, ends: false };
    try {
      const result = (await tool.execute(args, options.signal)) ?? null;
      const ends = tool.ends === true;
      const handoff = ends ? tool.handoff?.(args) : undefined;
      return { result, ends, ...(handoff ? { handoff } : {}) };
    } catch (failure) {
      return { result: { error: (failure as Error).message }, ends: false };
    }
  };
  return { name: call.name, args, done: run().then((outcome) => ({ ...outcome, durationMs: options.now() - started })) };
}

/** Whether the model is offered the turn's functions in round `round` (0 first): not past `maxToolRounds`. */
function offersTools(options: Pick<TurnOptions, 'tools' | 'maxToolRounds'>, round: number): boolean {
  return round < (options.maxToolRounds ?? 5) && options.tools.length > 0;
}

/** What a round of the turn asks the model, but its signal. */
function modelRequest(
  options: Pick<TurnOptions, 'modelName' | 'temperature' | 'tools'>, messages: ChatMessage[], offerTools: boolean,
): Omit<ChatRequest, 'signal'> {
  return {
    model: options.modelName,
    messages,
    ...(offerTools ? { tools: options.tools.map((tool) => tool.definition) } : {}),
    ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
  };
}

/**
 * The request a turn with these options makes first: a caller may send it early (early-request.ts), and the
 * turn takes that one when it asks the same.
 */
export function firstModelRequest(options: Pick<TurnOptions, 'modelName' | 'temperature' | 'tools' | 'maxToolRounds' | 'messages'>): Omit<ChatRequest, 'signal'> {
  return modelRequest(options, options.messages, offersTools(options, 0));
}

/**
 * One turn of the dialogue, iterated once for its events: the model answers, calling functions as it asks
 * (several at once run in parallel) and seeing their results, until it answers in words. After
 * `maxToolRounds` rounds it is asked once more without functions, so a turn always ends. Nothing runs
 * until it is iterated; leaving the loop early stops the model request. `result` says what the turn came
 * to, complete or cut short.
 */
export class AgentTurn implements AsyncIterable<TurnEvent> {
  private readonly options: TurnOptions;
  private readonly functionCalls: FunctionCallRecord[] = [];
  private endCall = false;
  private handoff: Handoff | undefined;
  /** The answer being written: text of the current round. */
  private answer: SentenceSplitter;
  private iterated = false;

  constructor(options: TurnOptions) {
    this.options = options;
    this.answer = new SentenceSplitter({ firstClause: options.firstClause === true });
  }

  get result(): TurnResult {
    return { delivered: this.answer.text, functionCalls: this.functionCalls, endCall: this.endCall, ...(this.handoff ? { handoff: this.handoff } : {}) };
  }

  [Symbol.asyncIterator](): AsyncIterator<TurnEvent> {
    if (this.iterated) throw new Error('A turn is iterated once.');
    this.iterated = true;
    return this.run();
  }

  private async *run(): AsyncGenerator<TurnEvent> {
    const { options } = this;
    const { signal } = options;
    const tools = new Map(options.tools.map((tool) => [tool.definition.name, tool]));
    const messages = [...options.messages];

    for (let round = 0; ; round++) {
      const offerTools = offersTools(options, round);
      const answer = this.answer;
      let calls: ToolCall[] = [];
      for await (const event of options.model.stream({ ...modelRequest(options, messages, offerTools), signal })) {
        if (event.type === 'token') {
          // Pieces the provider had already read when the signal came are not handed out.
          signal.throwIfAborted();
          answer.push(event.text);
          yield event;
          for (let sentence = answer.next(); sentence !== undefined; sentence = answer.next()) yield { type: 'sentence', text: sentence };
        } else if (event.type === 'tool_calls') {
          calls = event.calls;
        }
      }
      answer.end();
      const final = calls.length === 0 || !offerTools;
      if (final && !answer.text.trim() && calls.length === 0 && this.functionCalls.length === 0) {
        throw new LanguageModelError('the language model returned an empty answer');
      }
      // Text before a round of calls is spoken or shown, but the answer is what comes after the calls.
      if (!final) this.answer = new SentenceSplitter({ firstClause: options.firstClause === true && !answer.text.trim() });
      for (let sentence = answer.next(); sentence !== undefined; sentence = answer.next()) yield { type: 'sentence', text: sentence };
      if (final) return;

      messages.push({ role: 'assistant', content: answer.text || null, toolCalls: calls });
      if (options.toolGate) await untilAborted(options.toolGate, signal);
      const running = calls.map((call) => startCall(call, tools, options));
      for (const call of running) yield { type: 'tool_started', name: call.name, arguments: call.args };
      for (const [index, call] of running.entries()) {
        const { result, ends, handoff, durationMs } = await untilAborted(call.done, signal);
        const record = { name: call.name, arguments: call.args, result };
        this.functionCalls.push(record);
        messages.push({ role: 'tool', toolCallId: calls[index]?.id ?? '', content: JSON.stringify(result) });
        yield { type: 'tool_finished', call: record, durationMs };
        if (ends) {
          this.endCall = true;
          this.handoff ??= handoff;
          yield handoff ? { type: 'end_call', handoff } : { type: 'end_call' };
        }
      }
    }
  }
}
