import type { Knex } from 'knex';

/** API keys and session tokens: only the SHA-256 of the secret is kept. */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('access_tokens', (table) => {
    table.bigIncrements('id');
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('kind', 16).notNullable();
    table.string('name', 255).notNullable();
    table.string('token_hash', 64).notNullable().unique();
    table.timestamp('last_used_at', { useTz: true });
    table.timestamp('expires_at', { useTz: true });
    table.timestamps(true, true);
    table.index(['user_id', 'kind']);
  });
  await knex.raw("alter table access_tokens add constraint access_tokens_kind check (kind in ('api_key', 'session'))");
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('access_tokens');
}
