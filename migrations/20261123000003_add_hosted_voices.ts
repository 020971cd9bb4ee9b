import type { Knex } from 'knex';

/**
 * OpenAI's speech endpoint as a synthesizer (`/v1/audio/speech`, code `openai`) with a few of its voices, so
 * the catalog lists them when TTS_PROVIDER is openai. Rows already there (added by an operator) are kept.
 */
const voices: [string, string][] = [
  ['alloy', 'female'], ['ash', 'male'], ['coral', 'female'], ['echo', 'male'],
  ['nova', 'female'], ['onyx', 'male'], ['sage', 'female'], ['verse', 'male'],
];

export async function up(knex: Knex): Promise<void> {
  await knex('synthesizer_providers')
    .insert({ name: 'OpenAI', code: 'openai', language_codes: null })
    .onConflict('code')
    .ignore();
  const [provider] = await knex('synthesizer_providers').where('code', 'openai').pluck('id') as (number | string)[];
  const [english] = await knex('languages').where('iso2', 'en').pluck('id') as (number | string)[];
  const existing = new Set(await knex('voices').where('synthesizer_provider_id', provider).pluck('provider_voice_id') as string[]);
  const rows = voices.filter(([voice]) => !existing.has(voice)).map(([voice, gender]) => ({
    name: `${voice[0]!.toUpperCase()}${voice.slice(1)} (OpenAI)`,
    mode: 'pipeline',
    gender,
    language_id: english ?? null,
    synthesizer_provider_id: provider,
    provider_voice_id: voice,
  }));
  if (rows.length > 0) await knex('voices').insert(rows);
}

export async function down(knex: Knex): Promise<void> {
  // Its voices go with it (on delete cascade).
  await knex('synthesizer_providers').where({ code: 'openai' }).delete();
}
