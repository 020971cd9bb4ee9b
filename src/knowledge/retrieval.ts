import type { Knex } from 'knex';
import pgvector from 'pgvector';
import type { EmbeddingsProvider } from '../providers/embeddings/index.ts';
import type { ChunkMetadata } from './ingestion/chunk.ts';

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
  /** Stops the search: the embedding request at once, the database work before its next query. */
  signal?: AbortSignal;
}

export interface RetrievalResult {
  mode: 'hybrid' | 'full_text';
  chunks: RetrievedChunk[];
}

interface ChunkRow {
  id: number;
  document_id: number;
  document_name: string;
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
 * Reciprocal rank fusion of ranked id lists (best first): each list gives an id `1 / (k + rank)`, and the
 * sums order the result; ties go to the smaller id so the order is stable.
 */
export function fuseRankings(rankings: number[][], k = rrfK): { id: number; score: number }[] {
  const scores = new Map<number, number>();
  for (const ranking of rankings) {
    ranking.forEach((id, index) => scores.set(id, (scores.get(id) ?? 0) + 1 / (k + index + 1)));
  }
  return [...scores.entries()].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
}

type Ranker = (trx: Knex.Transaction) => Promise<number[]>;

/** Runs a ranking in a transaction of its own, so its planner settings stay local to it. */
function ranked(knex: Knex, settings: string[], rank: Ranker): Promise<number[]> {
  return knex.transaction(async (trx) => {
    for (const setting of settings) await trx.raw(setting);
    return rank(trx);
  });
}

/** Chunks holding every word rank above those holding some; within each group, by ts_rank. */
function rankByText(knex: Knex, options: RetrievalOptions, terms: string): Promise<number[]> {
  const settings = options.exact ? ['set local enable_indexscan = off', 'set local enable_bitmapscan = off'] : [];
  return ranked(knex, settings, async (trx) => {
    const { rows } = await trx.raw<{ rows: { id: number }[] }>(
      `select m.id from (
         (select id, tsv from document_chunks where knowledgebase_id = :kb and tsv @@ to_tsquery('english', :allTerms) limit :bound)
         union
         (select id, tsv from document_chunks where knowledgebase_id = :kb and tsv @@ to_tsquery('english', :anyTerms) limit :bound)
       ) m
       order by m.tsv @@ to_tsquery('english', :allTerms) desc, ts_rank(m.tsv, to_tsquery('english', :anyTerms)) desc, m.id
       limit :limit`,
      { kb: options.knowledgebaseId, anyTerms: terms, allTerms: fullTextQuery(options.query, '&') || terms, bound: anyTermBound, limit: candidates },
    );
    return rows.map((row) => Number(row.id));
  });
}

/** The nearest chunks by cosine distance, through the partial HNSW index of this dimension. */
function rankByVector(knex: Knex, options: RetrievalOptions, vector: number[], dimensions: number, model: string): Promise<number[]> {
  const settings = options.exact
    ? ['set local enable_indexscan = off', 'set local enable_bitmapscan = off']
    // Without iterative scans, HNSW returns its ef_search nearest chunks of *all* knowledge bases and the filter
    // to this one may leave fewer than asked; relaxed order keeps going until enough pass (pgvector 0.8).
    : ["set local hnsw.iterative_scan = 'relaxed_order'", 'set local hnsw.ef_search = 100'];
  return ranked(knex, settings, async (trx) => {
    // The cast and the vector_dims condition match the partial HNSW index of this dimension, and the order is
    // the distance alone: any tie-breaker would keep the index from ordering the scan. Named bindings must not
    // share a name with a type cast (`::vector`), or knex would replace the cast.
    const { rows } = await trx.raw<{ rows: { id: number; distance: number }[] }>(
      `select id, embedding::vector(${dimensions}) <=> (:queryVector)::vector(${dimensions}) as distance from document_chunks
       where knowledgebase_id = :kb and vector_dims(embedding) = ${dimensions} and embedding_model = :embeddingModel
       order by embedding::vector(${dimensions}) <=> (:queryVector)::vector(${dimensions})
       limit :limit`,
      { kb: options.knowledgebaseId, embeddingModel: model, queryVector: pgvector.toSql(vector), limit: candidates },
    );
    // Equal distances come back in any order; the id decides, as it does for the text ranking.
    return rows.sort((a, b) => a.distance - b.distance || Number(a.id) - Number(b.id)).map((row) => Number(row.id));
  });
}

/**
 * Hybrid search in one knowledge base of one user: the full-text ranking (the generated tsvector, GIN
 * index) and the vector ranking (cosine, HNSW index of the configured dimension) run at the same time, on
 * connections of their own, and are fused by reciprocal rank fusion. Without an embeddings provider, full
 * text alone. A knowledge base of another user yields nothing, as if empty. This is what the assistant calls.
 */
export async function searchKnowledgebase(
  deps: { knex: Knex; embeddings: EmbeddingsProvider | undefined },
  options: RetrievalOptions,
): Promise<RetrievalResult> {
  const terms = fullTextQuery(options.query);
  const vector = deps.embeddings ? (await deps.embeddings.embed([options.query], { signal: options.signal }))[0] : undefined;
  const mode = vector ? 'hybrid' : 'full_text';
  if (!terms && !vector) return { mode, chunks: [] };
  options.signal?.throwIfAborted();
  const owned: unknown = await deps.knex('knowledgebases').where({ id: options.knowledgebaseId, userId: options.userId }).first('id');
  if (!owned) return { mode, chunks: [] };

  const rankings = await Promise.all([
    terms ? rankByText(deps.knex, options, terms) : Promise.resolve([]),
    vector && deps.embeddings
      ? rankByVector(deps.knex, options, vector, deps.embeddings.dimensions, deps.embeddings.model)
      : Promise.resolve([]),
  ]);
  const best = fuseRankings(rankings).slice(0, options.topK);
  if (best.length === 0) return { mode, chunks: [] };
  options.signal?.throwIfAborted();
  const rows = await deps.knex.raw<{ rows: ChunkRow[] }>(
    `select c.id, c.document_id, d.name as document_name, c.content, c.metadata
     from document_chunks c join documents d on d.id = c.document_id
     where c.id = any(?)`,
    [best.map((entry) => entry.id)],
  );
  const byId = new Map(rows.rows.map((row) => [Number(row.id), row]));
  return {
    mode,
    chunks: best.flatMap(({ id, score }) => {
      const row = byId.get(id);
      return row
        ? [{ chunkId: id, documentId: Number(row.document_id), documentName: row.document_name, score, text: row.content, metadata: row.metadata }]
        : [];
    }),
  };
}
