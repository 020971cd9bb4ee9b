import type { Knex } from 'knex';
import type { SafeFetch } from '../lib/safe-fetch.ts';
import type { EmbeddingsProvider } from '../providers/embeddings/types.ts';
import type { ChatMessage } from '../providers/llm/types.ts';
import { searchKnowledgebase } from '../knowledge/retrieval.ts';
import type { AgentProfile } from './profile.ts';
import { fillTemplate } from './template.ts';
import { endCallTool, httpTool, knowledgeTool, passagesForPrompt, type Passage } from './tools.ts';
import type { AgentTool } from './turn.ts';

export interface AgentDeps {
  knex: Knex;
  safeFetch: SafeFetch;
  embeddings: EmbeddingsProvider | undefined;
}

/** One earlier message of the dialogue, as stored. */
export interface HistoryEntry {
  role: 'user' | 'assistant';
  content: string;
}

const PASSAGES = 5;

async function search(deps: AgentDeps, profile: AgentProfile, query: string): Promise<Passage[]> {
  if (profile.knowledgebaseId === null) return [];
  const { chunks } = await searchKnowledgebase(
    { knex: deps.knex, embeddings: deps.embeddings },
    { userId: profile.userId, knowledgebaseId: profile.knowledgebaseId, query, topK: PASSAGES },
  );
  return chunks.map((chunk) => ({ documentName: chunk.documentName, text: chunk.text, score: chunk.score }));
}

/** The variables of a dialogue: the assistant's defaults, overridden by those the conversation was started with. */
export function dialogueVariables(profile: AgentProfile, variables: Record<string, unknown>): Record<string, unknown> {
  return { ...profile.variables, ...variables };
}

/** The assistant's opening line with its variables filled; empty when it has none. */
export function openingLine(profile: AgentProfile, variables: Record<string, unknown>): string {
  return fillTemplate(profile.initialMessage, dialogueVariables(profile, variables)).trim();
}

/**
 * The model input for one turn: the system prompt with variables filled (and, in `prompt` mode, passages
 * retrieved for the new message), the history, the new user message; and the functions on offer: the
 * assistant's HTTP tools, the knowledge search (in `function_call` mode) and end-call.
 */
export async function prepareTurn(
  deps: AgentDeps,
  profile: AgentProfile,
  input: { variables: Record<string, unknown>; history: HistoryEntry[]; message: string },
): Promise<{ messages: ChatMessage[]; tools: AgentTool[] }> {
  const variables = dialogueVariables(profile, input.variables);
  let system = fillTemplate(profile.systemPrompt, variables);
  const tools: AgentTool[] = profile.httpTools.map((spec) => httpTool(spec, deps.safeFetch));
  if (profile.knowledgebaseId !== null) {
    if (profile.knowledgebaseMode === 'prompt') system += passagesForPrompt(await search(deps, profile, input.message));
    else tools.push(knowledgeTool((query) => search(deps, profile, query)));
  }
  tools.push(endCallTool(profile.endCallDescription));
  const messages: ChatMessage[] = [
    ...(system.trim() ? [{ role: 'system' as const, content: system }] : []),
    ...input.history.map((entry): ChatMessage => ({ role: entry.role, content: entry.content })),
    { role: 'user', content: input.message },
  ];
  return { messages, tools };
}
