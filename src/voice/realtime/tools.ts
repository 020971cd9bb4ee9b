/**
 * The assistant's tools as a speech-to-speech model calls them: the same AgentTool objects the pipeline's
 * agent turn runs (HTTP tools, knowledge search, end-call), executed on the model's `function_call`, their
 * results handed back as JSON. A failing or unknown tool is an error result for the model, never a failed call.
 */
import { parseArguments, type AgentTool } from '../../agent/turn.ts';
import type { FunctionDefinition } from '../../providers/llm/types.ts';

export class RealtimeTools {
  private readonly tools: Map<string, AgentTool>;
  private readonly signal: AbortSignal;
  /** Calls still running, per response that made them. */
  private readonly running = new Map<string, number>();
  /** The model called end-call. */
  endRequested = false;

  constructor(tools: AgentTool[], signal: AbortSignal) {
    this.tools = new Map(tools.map((tool) => [tool.definition.name, tool]));
    this.signal = signal;
  }

  get definitions(): FunctionDefinition[] {
    return [...this.tools.values()].map((tool) => tool.definition);
  }

  /** Whether calls of `responseId` (of any response when omitted) are still running. */
  busy(responseId?: string): boolean {
    if (responseId !== undefined) return (this.running.get(responseId) ?? 0) > 0;
    return this.running.size > 0;
  }

  /**
   * Runs the call and hands `deliver` its result as the output to send; the call counts as running until the
   * output is delivered, so no answer is asked for before the model has every result.
   */
  async run(responseId: string, name: string, rawArguments: string, deliver: (output: string) => void): Promise<void> {
    this.running.set(responseId, (this.running.get(responseId) ?? 0) + 1);
    try {
      deliver(JSON.stringify(await this.execute(name, rawArguments)));
    } finally {
      const left = (this.running.get(responseId) ?? 1) - 1;
      if (left > 0) this.running.set(responseId, left);
      else this.running.delete(responseId);
    }
  }

  private async execute(name: string, rawArguments: string): Promise<unknown> {
    const tool = this.tools.get(name);
    if (!tool) return { error: `there is no function named ${name}` };
    const { args, error } = parseArguments(rawArguments);
    if (error) return { error };
    try {
      const result = (await tool.execute(args, this.signal)) ?? null;
      if (tool.ends) this.endRequested = true;
      return result;
    } catch (failure) {
      return { error: (failure as Error).message };
    }
  }
}
