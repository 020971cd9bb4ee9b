import type { ChatMessage } from '../providers/llm/types.ts';
import { untilAborted } from '../lib/abort.ts';
import type { AgentPorts } from './ports.ts';
import type { AgentProfile } from './profile.ts';
import { lineTools } from './line-tools.ts';
import { fillTemplate } from './template.ts';
import { endCallTool, httpTool, knowledgeTool, passagesForPrompt } from './tools.ts';
import type { AgentTool } from './turn.ts';

/** One earlier message of the dialogue, as stored. */
export interface HistoryEntry {
  role: 'user' | 'assistant';
  content: string;
}

/** What one turn sends the model: the whole conversation so far, and the functions on offer. */
export interface TurnInput {
  messages: ChatMessage[];
  tools: AgentTool[];
}

/** The variables of a dialogue: the assistant's defaults, overridden by those the conversation was started with. */
export function dialogueVariables(profile: Pick<AgentProfile, 'variables'>, variables: Record<string, unknown>): Record<string, unknown> {
  return { ...profile.variables, ...variables };
}

/** The assistant's opening line with its variables filled; empty when it has none. */
export function openingLine(profile: Pick<AgentProfile, 'initialMessage' | 'variables'>, variables: Record<string, unknown>): string {
  return fillTemplate(profile.initialMessage, dialogueVariables(profile, variables)).trim();
}

/** What the assistant leaves on a voicemail box: its voicemail message, or else its opening line, variables filled. */
export function voicemailLine(profile: AgentProfile, variables: Record<string, unknown>, message: string | null): string {
  return message ? fillTemplate(message, dialogueVariables(profile, variables)).trim() : openingLine(profile, variables);
}

/**
 * The functions on offer: the assistant's HTTP tools, the knowledge search (in `function_call` mode), its line
 * tools when there is a line (a call, not a chat) and end-call.
 */
export function dialogueTools(ports: Pick<AgentPorts, 'searchKnowledge' | 'fetch' | 'line'>, profile: AgentProfile): AgentTool[] {
  const tools: AgentTool[] = profile.httpTools.map((spec) => httpTool(spec, ports.fetch));
  if (profile.knowledgebaseId !== null && profile.knowledgebaseMode === 'function_call') tools.push(knowledgeTool(ports.searchKnowledge));
  if (ports.line) tools.push(...lineTools(profile.lineTools, ports.line));
  tools.push(endCallTool(profile.endCallDescription));
  return tools;
}

/**
 * The model input for one turn: the system prompt with variables filled (and, in `prompt` mode, passages
 * retrieved for the new message), the history, the new user message; and the functions on offer
 * (`dialogueTools`). The tools call out through the ports; the signal stops the retrieval of `prompt` mode.
 */
export async function buildTurnInput(
  ports: Pick<AgentPorts, 'searchKnowledge' | 'fetch' | 'line'>,
  profile: AgentProfile,
  input: { variables: Record<string, unknown>; history: HistoryEntry[]; message: string },
  signal: AbortSignal,
): Promise<TurnInput> {
  let system = fillTemplate(profile.systemPrompt, dialogueVariables(profile, input.variables));
  if (profile.knowledgebaseId !== null && profile.knowledgebaseMode === 'prompt') {
    system += passagesForPrompt(await untilAborted(ports.searchKnowledge(input.message, signal), signal));
  }
  const tools = dialogueTools(ports, profile);
  const messages: ChatMessage[] = [
    ...(system.trim() ? [{ role: 'system' as const, content: system }] : []),
    ...input.history.map((entry): ChatMessage => ({ role: entry.role, content: entry.content })),
    { role: 'user', content: input.message },
  ];
  return { messages, tools };
}
