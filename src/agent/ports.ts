import type { SafeFetch } from '../lib/safe-fetch.ts';
import type { Passage } from './tools.ts';

/**
 * What the dialogue core reaches the world through, built by its caller for one assistant: the core itself
 * knows no database, no HTTP client and no clock of its own.
 */
export interface AgentPorts {
  /** Passages of the assistant's knowledge base for a query, best first (at most `PASSAGES_PER_SEARCH`). */
  searchKnowledge: (query: string, signal: AbortSignal) => Promise<Passage[]>;
  /** The guarded client that mid-call HTTP tools call their endpoints through. */
  fetch: SafeFetch;
  /** Milliseconds on a monotonic clock: times the tool calls. */
  now: () => number;
}

/** How many passages one knowledge search hands the model. */
export const PASSAGES_PER_SEARCH = 5;
