import type { Knex } from 'knex';
import { PASSAGES_PER_SEARCH, type AgentPorts } from '../../agent/ports.ts';
import type { AgentProfile } from '../../agent/profile.ts';
import { searchKnowledgebase } from '../../knowledge/retrieval.ts';
import type { SafeFetch } from '../../lib/safe-fetch.ts';
import type { EmbeddingsProvider } from '../../providers/embeddings/types.ts';

/**
 * What the dialogue core reaches for one assistant's turns, in a chat or a call alike: its knowledge base, the
 * guarded client, the clock.
 */
export function assistantPorts(
  deps: { knex: Knex; embeddings: EmbeddingsProvider | undefined; safeFetch: SafeFetch },
  profile: AgentProfile,
): AgentPorts {
  const { knowledgebaseId, userId } = profile;
  return {
    fetch: deps.safeFetch,
    now: () => performance.now(),
    searchKnowledge: async (query, signal) => {
      if (knowledgebaseId === null) return [];
      const { chunks } = await searchKnowledgebase(
        { knex: deps.knex, embeddings: deps.embeddings },
        { userId, knowledgebaseId, query, topK: PASSAGES_PER_SEARCH, signal },
      );
      return chunks.map((chunk) => ({ documentName: chunk.documentName, text: chunk.text, score: chunk.score }));
    },
  };
}
