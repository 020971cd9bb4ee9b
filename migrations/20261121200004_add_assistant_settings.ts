import type { Knex } from 'knex';

/**
 * Every setting of an assistant, in the current spelling of the interface (the legacy spelling is mapped
 * onto these columns by the API). Defaults are those of the documented platform, so a row inserted with
 * only its identity is a complete assistant.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('assistants', (table) => {
    table.string('type', 16).notNullable().defaultTo('outbound');
    table.string('mode', 16).notNullable().defaultTo('pipeline');
    table.string('status', 16).notNullable().defaultTo('active');
    table.bigInteger('voice_id').references('voices.id').onDelete('SET NULL');
    table.bigInteger('language_id').references('languages.id').onDelete('SET NULL');
    table.jsonb('secondary_language_ids').notNullable().defaultTo('[]');
    table.bigInteger('llm_model_id').references('language_models.id').onDelete('SET NULL');
    table.bigInteger('multimodal_model_id').references('language_models.id').onDelete('SET NULL');
    table.bigInteger('chat_llm_fallback_id').references('language_models.id').onDelete('SET NULL');
    table.bigInteger('synthesizer_provider_id').references('synthesizer_providers.id').onDelete('SET NULL');
    table.bigInteger('transcriber_provider_id').references('transcriber_providers.id').onDelete('SET NULL');
    table.bigInteger('phone_number_id').references('phone_numbers.id').onDelete('SET NULL');
    table.string('knowledgebase_mode', 16);
    table.string('timezone', 64).notNullable().defaultTo('UTC');
    table.text('initial_message').notNullable().defaultTo('');
    table.text('system_prompt').notNullable().defaultTo('');
    table.jsonb('variables').notNullable().defaultTo('{}');
    // Built-in tools (end_call, call_transfer, ...) as `[{type, data}]`.
    table.jsonb('tools').notNullable().defaultTo('[]');
    table.boolean('post_call_evaluation').notNullable().defaultTo(true);
    table.jsonb('post_call_schema').notNullable().defaultTo('[]');
    table.boolean('tts_emotion_enabled').notNullable().defaultTo(true);
    table.double('voice_stability').notNullable().defaultTo(0.7);
    table.double('voice_similarity').notNullable().defaultTo(0.5);
    table.double('speech_speed').notNullable().defaultTo(1);
    table.double('llm_temperature').notNullable().defaultTo(0.1);
    table.double('turn_detection_threshold');
    table.boolean('allow_interruptions').notNullable().defaultTo(true);
    table.boolean('fillers').notNullable().defaultTo(false);
    table.jsonb('filler_config');
    table.boolean('record').notNullable().defaultTo(false);
    table.boolean('enable_noise_cancellation').notNullable().defaultTo(true);
    table.boolean('wait_for_customer').notNullable().defaultTo(false);
    table.integer('max_duration').notNullable().defaultTo(600);
    table.integer('max_silence_duration').notNullable().defaultTo(40);
    table.integer('max_initial_silence_duration');
    table.integer('ringing_time').notNullable().defaultTo(30);
    table.integer('reengagement_interval').notNullable().defaultTo(30);
    table.text('reengagement_prompt');
    table.boolean('end_call_on_voicemail').notNullable().defaultTo(true);
    table.text('voice_mail_message');
    table.string('endpoint_type', 8).notNullable().defaultTo('vad');
    table.double('endpoint_sensitivity').notNullable().defaultTo(0.5);
    table.double('interrupt_sensitivity').notNullable().defaultTo(0.5);
    // Null means the feature is off.
    table.integer('min_interrupt_words');
    table.string('ambient_sound', 16).notNullable().defaultTo('off');
    table.double('ambient_sound_volume').notNullable().defaultTo(0.5);
    table.boolean('is_webhook_active').notNullable().defaultTo(false);
    table.string('webhook_url', 2048);
    table.boolean('send_webhook_only_on_completed').notNullable().defaultTo(true);
    table.boolean('include_recording_in_webhook').notNullable().defaultTo(true);
    table.integer('conversation_inactivity_timeout').notNullable().defaultTo(30);
    table.boolean('conversation_ended_retrigger').notNullable().defaultTo(false);
    table.string('conversation_ended_webhook_url', 2048);
    table.index(['user_id', 'type', 'id']);
    table.index(['phone_number_id']);
  });
  await knex.raw("alter table assistants add constraint assistants_type check (type in ('inbound', 'outbound'))");
  await knex.raw("alter table assistants add constraint assistants_mode check (mode in ('pipeline', 'multimodal'))");
  await knex.raw("alter table assistants add constraint assistants_status check (status in ('active', 'inactive'))");
  // An inbound call must reach exactly one assistant; outbound assistants may share a caller number.
  await knex.raw("create unique index assistants_inbound_number_unique on assistants (phone_number_id) where type = 'inbound' and phone_number_id is not null");
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists assistants_inbound_number_unique');
  await knex.raw('alter table assistants drop constraint if exists assistants_type, drop constraint if exists assistants_mode, drop constraint if exists assistants_status');
  await knex.schema.alterTable('assistants', (table) => {
    table.dropIndex(['user_id', 'type', 'id']);
    table.dropIndex(['phone_number_id']);
    for (const column of [
      'type', 'mode', 'status', 'voice_id', 'language_id', 'secondary_language_ids', 'llm_model_id', 'multimodal_model_id',
      'chat_llm_fallback_id', 'synthesizer_provider_id', 'transcriber_provider_id', 'phone_number_id', 'knowledgebase_mode',
      'timezone', 'initial_message', 'system_prompt', 'variables', 'tools', 'post_call_evaluation', 'post_call_schema',
      'tts_emotion_enabled', 'voice_stability', 'voice_similarity', 'speech_speed', 'llm_temperature', 'turn_detection_threshold',
      'allow_interruptions', 'fillers', 'filler_config', 'record', 'enable_noise_cancellation', 'wait_for_customer', 'max_duration',
      'max_silence_duration', 'max_initial_silence_duration', 'ringing_time', 'reengagement_interval', 'reengagement_prompt',
      'end_call_on_voicemail', 'voice_mail_message', 'endpoint_type', 'endpoint_sensitivity', 'interrupt_sensitivity',
      'min_interrupt_words', 'ambient_sound', 'ambient_sound_volume', 'is_webhook_active', 'webhook_url',
      'send_webhook_only_on_completed', 'include_recording_in_webhook', 'conversation_inactivity_timeout',
      'conversation_ended_retrigger', 'conversation_ended_webhook_url',
    ]) table.dropColumn(column);
  });
}
