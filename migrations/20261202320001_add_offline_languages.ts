import type { Knex } from 'knex';

/**
 * The offline recognizer hears German, Spanish and French too (Whisper base beside tiny.en:
 * providers/stt/whisper-languages.ts), and OpenAI's speech voices are multilingual: they speak the language
 * of the text, so they carry no language (a German assistant may take one).
 */
export async function up(knex: Knex): Promise<void> {
  await knex('transcriber_providers').where({ code: 'whisper' }).update({ language_codes: JSON.stringify(['en', 'de', 'es', 'fr']) });
  const openai = knex('synthesizer_providers').where({ code: 'openai' }).select('id');
  await knex('voices').whereIn('synthesizer_provider_id', openai).whereNull('user_id').update({ language_id: null });
}

export async function down(knex: Knex): Promise<void> {
  await knex('transcriber_providers').where({ code: 'whisper' }).update({ language_codes: JSON.stringify(['en']) });
  const english = knex('languages').where({ iso2: 'en' }).select('id');
  const openai = knex('synthesizer_providers').where({ code: 'openai' }).select('id');
  await knex('voices').whereIn('synthesizer_provider_id', openai).whereNull('user_id').update({ language_id: english });
}
