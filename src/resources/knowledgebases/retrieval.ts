import type { Knex } from 'knex';
import pgvector from 'pgvector';
import type { EmbeddingsProvider } from '../../providers/embeddings/index.ts';
import type { ChunkMetadata } from '../documents/ingestion/chunk.ts';

export interface RetrievedChunk {
  chunkId: number;
  documentId: number;
  documentName: string;
  /** Reciprocal rank fusion score: comparable within one result list only. */
  score: number;
  text: string;
  metadata: ChunkMetadata;
}

export interface RetrievalOptions {
  userId: number;
  knowledgebaseId: number;
  query: string;
  topK: number;
  /** Bypass the indexes (sequential scans, exact distances): the baseline of the benchmark. */
  exact?: boolean;
}

export interface RetrievalResult {
  mode: 'hybrid' | 'full_text';
  chunks: RetrievedChunk[];
}

interface ChunkRow {
  id: number;
  document_id: number;
  document_name: string;
  score: number;
  content: string;
  metadata: ChunkMetadata;
}

// The usual RRF constant (Cormack et al., 2009): damps the weight of the very first ranks.
const rrfK = 60;
// Each ranking contributes this many candidates to the fusion.
const candidates = 40;
// Chunks matching some word of the query that are ranked at all. A query holding a common word matches most of
// a large knowledge base, and ranking every match is what made search slow; the chunks holding every word
// are found and ranked first regardless of this bound.
const anyTermBound = 1000;

/**
 * The query as an OR of its words, so that a question in natural language matches chunks holding any of
 * its terms and ranks higher those holding more; to_tsquery then stems them and drops stop words.
 * Only letters and digits reach to_tsquery, so user input can never be a tsquery syntax error.
 */
export function fullTextQuery(query: string, operator: '|' | '&' = '|'): string {
  const words = query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words)].slice(0, 64).join(` ${operator} `);
}

/**
 * Hybrid search in one knowledge base of one user: full-text rank (`ts_rank_cd` over the generated
 * tsvector, GIN index) and vector similarity (cosine, HNSW index of the configured dimension) are fused by
 * reciprocal rank fusion. Without an embeddings provider, full text alone. A knowledge base of another
 * user yields nothing, as if empty. This is what the assistant calls.
 */
export async function searchKnowledgebase(
  deps: { knex: Knex; embeddings: EmbeddingsProvider | undefined },
  options: RetrievalOptions,
): Promise<RetrievalResult> {
  const terms = fullTextQuery(options.query);
  const vector = deps.embeddings ? (await deps.embeddings.embed([options.query]))[0] : undefined;
  const dimensions = deps.embeddings?.dimensions ?? 0;
  const mode = vector ? 'hybrid' : 'full_text';
  if (!terms && !vector) return { mode, chunks: [] };

  return deps.knex.transaction(async (trx) => {
    if (options.exact) {
      await trx.raw('set local enable_indexscan = off');
      await trx.raw('set local enable_bitmapscan = off');
    } else if (vector) {
      // Without it, HNSW returns its ef_search nearest chunks of *all* knowledge bases and the filter to
      // this one may leave fewer than asked; iterative scans keep going until enough pass (pgvector 0.8).
      await trx.raw("set local hnsw.iterative_scan = 'relaxed_order'");
      // The default of 40 candidates is as many as the fusion takes; a wider search keeps recall high.
      await trx.raw('set local hnsw.ef_search = 100');
    }
    const owned: unknown = await trx('knowledgebases').where({ id: options.knowledgebaseId, userId: options.userId }).first('id');
    if (!owned) return { mode, chunks: [] };

    // Named bindings must not share a name with a type cast (`::vector`), or knex would replace the cast.
    const bindings: Record<string, unknown> = {
      kb: options.knowledgebaseId,
      anyTerms: terms || 'a',
      allTerms: fullTextQuery(options.query, '&') || 'a',
      bound: anyTermBound,
      limit: candidates,
      topK: options.topK,
      rrfK,
    };
    // Chunks holding every word rank above those holding some; within each group, by ts_rank_cd.
    const fullText = terms
      ? `select id, row_number() over (order by has_all desc, score desc, id) as rank from (
           select m.id, m.tsv @@ to_tsquery('english', :allTerms) as has_all, ts_rank_cd(m.tsv, to_tsquery('english', :anyTerms)) as score
           from (
             (select id, tsv from document_chunks where knowledgebase_id = :kb and tsv @@ to_tsquery('english', :allTerms) limit :bound)
             union
             (select id, tsv from document_chunks where knowledgebase_id = :kb and tsv @@ to_tsquery('english', :anyTerms) limit :bound)
           ) m
         ) ranked
         order by rank limit :limit`
      : 'select null::bigint as id, null::bigint as rank where false';
    let semantic = 'select null::bigint as id, null::bigint as rank where false';
    if (vector) {
      bindings.queryVector = pgvector.toSql(vector);
      bindings.embeddingModel = deps.embeddings?.model;
      // The cast and the vector_dims condition match the partial HNSW index of this dimension.
      semantic = `select id, row_number() over (order by distance, id) as rank from (
          select id, embedding::vector(${dimensions}) <=> (:queryVector)::vector(${dimensions}) as distance
          from document_chunks
          where knowledgebase_id = :kb and vector_dims(embedding) = ${dimensions} and embedding_model = :embeddingModel
          order by embedding::vector(${dimensions}) <=> (:queryVector)::vector(${dimensions})
          limit :limit
        ) nearest`;
    }
    const { rows } = await trx.raw<{ rows: ChunkRow[] }>(`
      with full_text as (${fullText}), semantic as (${semantic}),
      fused as (
        select coalesce(f.id, s.id) as id,
               coalesce(1.0 / (:rrfK + f.rank), 0) + coalesce(1.0 / (:rrfK + s.rank), 0) as score
        from full_text f full outer join semantic s on f.id = s.id
      )
      select c.id, c.document_id, d.name as document_name, fused.score::float8 as score, c.content, c.metadata
      from fused
      join document_chunks c on c.id = fused.id
      join documents d on d.id = c.document_id
      order by fused.score desc, c.id
      limit :topK`, bindings);
    return {
      mode,
      chunks: rows.map((row) => ({
        chunkId: row.id,
        documentId: row.document_id,
        documentName: row.document_name,
        score: row.score,
        text: row.content,
        metadata: row.metadata,
      })),
    };
  });
}
