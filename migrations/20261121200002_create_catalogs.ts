import type { Knex } from 'knex';

/**
 * The catalogs an assistant is built from: languages, text-to-speech and speech-to-text providers, voices,
 * and language models. Each row maps the public id to what a provider needs (language codes, the
 * provider's voice id, the provider's model name). Operators add rows (for example a model their
 * OpenAI-compatible server offers); the seed covers what works out of the box.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('languages', (table) => {
    table.bigIncrements('id');
    table.string('name', 100).notNullable().unique();
    table.string('iso2', 2).notNullable();
    // BCP 47 tags that speech providers take, such as `en-US`.
    table.string('stt_code', 16).notNullable();
    table.string('tts_code', 16).notNullable();
  });

  for (const name of ['synthesizer_providers', 'transcriber_providers']) {
    await knex.schema.createTable(name, (table) => {
      table.bigIncrements('id');
      table.string('name', 100).notNullable();
      table.string('code', 64).notNullable().unique();
      // ISO 639-1 codes the provider speaks; null means every language.
      table.jsonb('language_codes');
    });
  }

  await knex.schema.createTable('voices', (table) => {
    table.bigIncrements('id');
    table.string('name', 100).notNullable();
    // The engine the voice speaks through: a TTS provider (pipeline) or a speech-to-speech model (multimodal).
    table.string('mode', 16).notNullable();
    // Null for a multilingual voice.
    table.bigInteger('language_id').references('languages.id').onDelete('SET NULL');
    table.string('gender', 16);
    table.string('accent', 64);
    table.string('age', 32);
    table.string('preview_url', 2048);
    table.bigInteger('synthesizer_provider_id').references('synthesizer_providers.id').onDelete('CASCADE');
    table.string('provider_voice_id', 255).notNullable();
    // Null for public voices; a user's own cloned voice otherwise.
    table.bigInteger('user_id').references('users.id').onDelete('CASCADE');
    table.index(['mode', 'language_id']);
  });
  await knex.raw("alter table voices add constraint voices_mode check (mode in ('pipeline', 'multimodal'))");
  await knex.raw('alter table voices add constraint voices_pipeline_provider check (mode <> \'pipeline\' or synthesizer_provider_id is not null)');

  await knex.schema.createTable('language_models', (table) => {
    table.bigIncrements('id');
    table.string('name', 100).notNullable();
    // `llm`: chat completions for the pipeline; `multimodal`: a realtime speech-to-speech model.
    table.string('type', 16).notNullable();
    table.string('code', 100).notNullable();
    // `openai-compatible` (the configured chat completions endpoint) or `openai-realtime`.
    table.string('provider', 64).notNullable();
    table.string('provider_model', 255).notNullable();
    table.unique(['type', 'code']);
  });
  await knex.raw("alter table language_models add constraint language_models_type check (type in ('llm', 'multimodal'))");

  const languages = [
    ['English', 'en', 'en-US', 'en-US'],
    ['German', 'de', 'de-DE', 'de-DE'],
    ['French', 'fr', 'fr-FR', 'fr-FR'],
    ['Spanish', 'es', 'es-ES', 'es-ES'],
    ['Italian', 'it', 'it-IT', 'it-IT'],
    ['Portuguese', 'pt', 'pt-PT', 'pt-PT'],
    ['Dutch', 'nl', 'nl-NL', 'nl-NL'],
    ['Romanian', 'ro', 'ro-RO', 'ro-RO'],
  ] as const;
  await knex('languages').insert(languages.map(([name, iso2, stt, tts]) => ({ name, iso2, stt_code: stt, tts_code: tts })));
  const languageIds = new Map<string, number>(
    (await knex<{ id: number | string; iso2: string }>('languages').select('id', 'iso2')).map((row) => [row.iso2, Number(row.id)]),
  );

  await knex('synthesizer_providers').insert([
    { name: 'eSpeak NG', code: 'espeak', language_codes: JSON.stringify(languages.map(([, iso2]) => iso2)) },
    { name: 'ElevenLabs', code: 'elevenlabs', language_codes: null },
  ]);
  await knex('transcriber_providers').insert([
    { name: 'Deepgram', code: 'deepgram', language_codes: null },
    { name: 'OpenAI Whisper', code: 'openai', language_codes: null },
  ]);
  const providerIds = new Map<string, number>(
    (await knex<{ id: number | string; code: string }>('synthesizer_providers').select('id', 'code')).map((row) => [row.code, Number(row.id)]),
  );

  // espeak-ng voice names, with its `+m3` / `+f3` variants for a male and a female voice per language.
  const espeakVoices: [string, string][] = [
    ['English', 'en-us'], ['German', 'de'], ['French', 'fr'], ['Spanish', 'es'],
    ['Italian', 'it'], ['Portuguese', 'pt'], ['Dutch', 'nl'], ['Romanian', 'ro'],
  ];
  const espeak = providerIds.get('espeak');
  const rows: Record<string, unknown>[] = espeakVoices.flatMap(([language, voice], index) => {
    const iso2 = languages[index]?.[1] ?? '';
    return [
      { name: `${language} Male (eSpeak)`, gender: 'male', provider_voice_id: `${voice}+m3` },
      { name: `${language} Female (eSpeak)`, gender: 'female', provider_voice_id: `${voice}+f3` },
    ].map((voiceRow) => ({ ...voiceRow, mode: 'pipeline', language_id: languageIds.get(iso2), synthesizer_provider_id: espeak }));
  });
  const elevenlabs = providerIds.get('elevenlabs');
  rows.push(
    { name: 'Rachel', mode: 'pipeline', gender: 'female', accent: 'american', age: 'young', synthesizer_provider_id: elevenlabs, provider_voice_id: '21m00Tcm4TlvDq8EAJCM' },
    { name: 'Adam', mode: 'pipeline', gender: 'male', accent: 'american', age: 'middle aged', synthesizer_provider_id: elevenlabs, provider_voice_id: 'pNInz6obpgDQGcFmaJgB' },
  );
  // The voices of OpenAI's realtime models, which speak every language the model does.
  const realtimeVoices: [string, string][] = [
    ['alloy', 'female'], ['ash', 'male'], ['ballad', 'male'], ['coral', 'female'], ['echo', 'male'],
    ['sage', 'female'], ['shimmer', 'female'], ['verse', 'male'], ['marin', 'female'], ['cedar', 'male'],
  ];
  for (const [voice, gender] of realtimeVoices) {
    rows.push({ name: voice[0]?.toUpperCase() + voice.slice(1), mode: 'multimodal', gender, provider_voice_id: voice });
  }
  await knex('voices').insert(rows);

  await knex('language_models').insert([
    { name: 'GPT-4o-mini', type: 'llm', code: 'gpt-4o-mini', provider: 'openai-compatible', provider_model: 'gpt-4o-mini' },
    { name: 'GPT-4.1-mini', type: 'llm', code: 'gpt-4.1-mini', provider: 'openai-compatible', provider_model: 'gpt-4.1-mini' },
    { name: 'GPT-4o', type: 'llm', code: 'gpt-4o', provider: 'openai-compatible', provider_model: 'gpt-4o' },
    { name: 'GPT-4.1', type: 'llm', code: 'gpt-4.1', provider: 'openai-compatible', provider_model: 'gpt-4.1' },
    // For an OpenAI-compatible base URL pointing at a local Ollama.
    { name: 'Llama 3.1 8B', type: 'llm', code: 'llama3.1-8b', provider: 'openai-compatible', provider_model: 'llama3.1:8b' },
    { name: 'GPT-4o', type: 'multimodal', code: 'gpt-4o-realtime', provider: 'openai-realtime', provider_model: 'gpt-4o-realtime-preview' },
    { name: 'GPT Realtime', type: 'multimodal', code: 'gpt-realtime', provider: 'openai-realtime', provider_model: 'gpt-realtime' },
  ]);
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('language_models');
  await knex.schema.dropTable('voices');
  await knex.schema.dropTable('transcriber_providers');
  await knex.schema.dropTable('synthesizer_providers');
  await knex.schema.dropTable('languages');
}
