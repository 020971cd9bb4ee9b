import { setImmediate as checkPhase } from 'node:timers/promises';
import type { Knex } from 'knex';
import type { AgentProfile } from '../../agent/profile.ts';
import { EarlyModelRequest } from '../../agent/early-request.ts';
import { buildTurnInput, type HistoryEntry } from '../../agent/turn-input.ts';
import { firstModelRequest, type TurnOptions } from '../../agent/turn.ts';
import { earlyModelRequests } from '../../lib/metrics.ts';
import { assistantPorts } from '../assistants/ports.ts';
import { toAgentProfile } from '../assistants/profile.ts';
import { knownAssistant } from './known-assistants.ts';
import type { ConversationType } from './model.ts';
import type { ConversationDeps } from './service.ts';

/**
 * A chat turn's model request, sent while the message's statement runs (docs/decisions.md, "A chat reply asked
 * early"). The statement is what makes the turn sure: it charges the message and reads the history and the
 * profile in its snapshot. The request made early is made from what this process remembers of the conversation
 * (its history after the last turn it served here) and of the assistant (known-assistants.ts), and the turn takes
 * it only if it asks the model the very same thing from what the statement read (agent/early-request.ts); else it
 * is abandoned and the turn asks afresh, as it would have anyway. So a memory gone stale, another process's
 * turn, an operator's message or a changed prompt cost one wasted request, never a wrong answer; and a
 * conversation whose history grew behind this process's back (its messages go to several API processes) is
 * not sent early here again, so that it does not cost one at each turn.
 */

/** What a process remembers of a conversation after a turn it served: enough to make the next turn's request. */
export interface RememberedConversation {
  assistantUuid: string;
  type: ConversationType;
  variables: Record<string, unknown>;
  history: HistoryEntry[];
}

/** The most conversations a process remembers, and the most text (characters of their histories) in all. */
const MOST_CONVERSATIONS = 1_000;
const MOST_CHARACTERS = 4_000_000;

interface Memory {
  /** A conversation without its `conversation` is one written to by other processes too: none is sent early. */
  conversations: Map<string, { conversation: RememberedConversation | undefined; characters: number }>;
  characters: number;
}

const memories = new WeakMap<Knex, Memory>();

function memoryOf(knex: Knex): Memory {
  let memory = memories.get(knex);
  if (!memory) memories.set(knex, memory = { conversations: new Map(), characters: 0 });
  return memory;
}

/** The conversation as this process remembers it; undefined when it does not, or other processes write to it too. */
export function rememberedConversation(knex: Knex, uuid: string): RememberedConversation | undefined {
  return memoryOf(knex).conversations.get(uuid)?.conversation;
}

export function forgetConversation(knex: Knex, uuid: string): void {
  const memory = memoryOf(knex);
  const entry = memory.conversations.get(uuid);
  if (!entry) return;
  memory.conversations.delete(uuid);
  memory.characters -= entry.characters;
}

/** Remembers the conversation as it now is in the database; the ones remembered longest ago make room. */
export function rememberConversation(knex: Knex, uuid: string, conversation: RememberedConversation | undefined): void {
  const memory = memoryOf(knex);
  // One marked as written to by other processes stays marked.
  if (memory.conversations.has(uuid) && !memory.conversations.get(uuid)!.conversation) conversation = undefined;
  forgetConversation(knex, uuid);
  const characters = conversation?.history.reduce((sum, entry) => sum + entry.content.length, 0) ?? 0;
  // A chat too long to keep is not sent early.
  if (characters > MOST_CHARACTERS / 100) return;
  for (const [oldest] of memory.conversations) {
    if (memory.conversations.size < MOST_CONVERSATIONS && memory.characters + characters <= MOST_CHARACTERS) break;
    forgetConversation(knex, oldest);
  }
  memory.conversations.set(uuid, { conversation, characters });
  memory.characters += characters;
}

/** What the turn is run with, but its model and signal: one function, so a request made early is made alike. */
export async function replyOptions(
  deps: Pick<ConversationDeps, 'knex' | 'embeddings' | 'safeFetch' | 'defaultModel'>,
  profile: AgentProfile,
  dialogue: { variables: Record<string, unknown>; history: HistoryEntry[]; message: string },
  signal: AbortSignal,
): Promise<Omit<TurnOptions, 'model' | 'signal'>> {
  const ports = assistantPorts(deps, profile);
  const input = await buildTurnInput(ports, profile, dialogue, signal);
  return { modelName: profile.modelName ?? deps.defaultModel, temperature: profile.temperature, ...input, now: ports.now };
}

/** Mirrors a change of the conversation's variables made in the database (generate-reply.ts merges them). */
export function rememberVariables(knex: Knex, uuid: string, variables: Record<string, unknown>): void {
  const entry = memoryOf(knex).conversations.get(uuid);
  if (entry?.conversation) entry.conversation = { ...entry.conversation, variables };
}

/** Whether a message's statement read the history its request was sent early with: no other process wrote in between. */
export function heldHistory(knex: Knex, uuid: string, sent: SentEarly, history: HistoryEntry[]): boolean {
  if (sent.historyLength === history.length) return true;
  rememberConversation(knex, uuid, undefined);
  return false;
}

export interface SentEarly {
  request: EarlyModelRequest;
  /** The length of the history it was made with. */
  historyLength: number;
}

/**
 * Sends the reply's model request early for a message to a conversation this process remembers, its assistant
 * too; undefined when it does not, when the assistant retrieves passages for each message into its prompt (a
 * retrieval per message is not worth making early), or for a free test conversation: its messages are limited
 * to keep the model's cost down, and one refused must not have asked the model.
 *
 * It resolves once the request has gone out, so that the message's statement, started after it, does not go
 * before it. undici writes a request on a kept-alive connection that has been idle only at the event loop's next
 * check phase (it first lets the connection report a close the server may have sent: GHSA-35p6-xmwp-9g52); a
 * statement started in the same tick was written first, and that write, which wakes the database, held the
 * model's request back by about half a millisecond (docs/decisions.md, issue 34's fifth round).
 */
export async function sendEarly(
  deps: ConversationDeps, uuid: string, message: string, signal: AbortSignal,
): Promise<SentEarly | undefined> {
  const conversation = rememberedConversation(deps.knex, uuid);
  const stored = conversation && knownAssistant(deps.knex, conversation.assistantUuid);
  if (!deps.model || !stored || conversation.type === 'test' || (stored.knowledgebaseId !== null && stored.knowledgebaseMode === 'prompt')) return undefined;
  const { variables, history } = conversation;
  const options = await replyOptions(deps, toAgentProfile(deps.secrets, stored), { variables, history, message }, signal);
  const request = new EarlyModelRequest(deps.model, firstModelRequest(options), signal);
  // The client's own wait for the check phase was queued as the request was made: this one comes after it.
  await checkPhase();
  return { request, historyLength: history.length };
}

/** Counts what became of a request sent early, once its turn is over. */
export function countEarly(early: EarlyModelRequest | undefined): void {
  if (early) earlyModelRequests.inc({ outcome: early.outcome === 'taken' ? 'taken' : 'abandoned' });
}
