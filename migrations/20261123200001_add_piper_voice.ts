import type { Knex } from 'knex';

/**
 * Piper, the offline neural voice of the embedded default (providers/tts/piper.ts), as a synthesizer
 * provider `piper` with its one installed voice, en_US-joe-medium (scripts/install-speech.sh).
 */
export async function up(knex: Knex): Promise<void> {
  const [provider] = await knex<{ id: number | string; name: string; code: string; language_codes: string }>('synthesizer_providers')
    .insert({ name: 'Piper', code: 'piper', language_codes: JSON.stringify(['en']) })
    .returning('id');
  const english = await knex<{ id: number | string; iso2: string }>('languages').where({ iso2: 'en' }).first('id');
  await knex('voices').insert({
    name: 'Joe (Piper)',
    mode: 'pipeline',
    gender: 'male',
    accent: 'american',
    language_id: english?.id ?? null,
    synthesizer_provider_id: provider?.id,
    provider_voice_id: 'en_US-joe-medium',
  });
}

export async function down(knex: Knex): Promise<void> {
  // The provider's voices go with it (voices.synthesizer_provider_id cascades).
  await knex('synthesizer_providers').where({ code: 'piper' }).delete();
}
