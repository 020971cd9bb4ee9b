import type { Knex } from 'knex';

/**
 * The dimensions that get an HNSW index: the common sizes of embedding models (all-MiniLM 384, nomic and
 * bge-base 768, bge-large and mxbai 1024, OpenAI 1536). Vectors of any other size are still stored and
 * searched, exactly; docs/decisions.md says how to index another size.
 */
const indexedDimensions = [384, 768, 1024, 1536];

/**
 * Chunks of extracted text. `tsv` is generated from the text for full-text search; `embedding` is an
 * untyped `vector` so the embedding size can follow EMBEDDINGS_DIMENSIONS without a migration, with one
 * partial HNSW index per common size over the column cast to that size (pgvector indexes need a fixed
 * dimension). `embedding_model` keeps vectors of different models apart.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('document_chunks', (table) => {
    table.bigIncrements('id');
    table.bigInteger('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    table.bigInteger('knowledgebase_id').notNullable().references('knowledgebases.id').onDelete('CASCADE');
    table.integer('position').notNullable();
    table.text('content').notNullable();
    table.jsonb('metadata').notNullable().defaultTo('{}');
    table.integer('token_count').notNullable();
    table.string('embedding_model', 255);
    table.unique(['document_id', 'position']);
    table.index(['knowledgebase_id']);
  });
  await knex.raw("alter table document_chunks add column tsv tsvector generated always as (to_tsvector('english', content)) stored");
  await knex.raw('alter table document_chunks add column embedding vector');
  await knex.raw('create index document_chunks_tsv on document_chunks using gin (tsv)');
  for (const dimensions of indexedDimensions) {
    await knex.raw(
      `create index document_chunks_embedding_${dimensions} on document_chunks ` +
      `using hnsw ((embedding::vector(${dimensions})) vector_cosine_ops) where vector_dims(embedding) = ${dimensions}`,
    );
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('document_chunks');
}
