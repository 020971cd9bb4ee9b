import type { Knex } from 'knex';

/**
 * Whisper tiny.en in the offline stack (providers/stt/whisper-local.ts) as a transcriber provider `whisper`,
 * so the transcriber catalog can say what the embedded default listens with.
 */
export async function up(knex: Knex): Promise<void> {
  await knex('transcriber_providers').insert({ name: 'Whisper (offline)', code: 'whisper', language_codes: JSON.stringify(['en']) });
}

export async function down(knex: Knex): Promise<void> {
  await knex('transcriber_providers').where({ code: 'whisper' }).delete();
}
