import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { IdField, IdInteger, orNull, PageNumber } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';
import { BuiltinToolItem, WebUrl } from './builtin-tools.ts';

const Id = IdField();
const between = (minimum: number, maximum: number) => Type.Number({ minimum, maximum });
const betweenInt = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });
const literals = <T extends string>(values: readonly T[], options: Record<string, unknown> = {}) =>
  Type.Union(values.map((value) => Type.Literal(value)), options);

export const AMBIENT_SOUNDS = ['off', 'office', 'city', 'forest', 'crowded_room', 'cafe', 'nature'] as const;

const Variables = Type.Record(Type.String(), Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()]), {
  maxProperties: 100,
  description: 'Key-value pairs, used as `{{name}}` in the prompt and initial message.',
});

/** Fields both spellings share, with the same rules. */
const shared = {
  voice_id: IdField({ description: 'A voice of `/user/assistants/voices` that suits the engine mode.' }),
  timezone: Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone, e.g. `Europe/Berlin`.' }),
  system_prompt: Type.String({ minLength: 1 }),
  phone_number_id: orNull(IdField({ description: 'One of the caller\'s numbers; for inbound, not a caller ID and not on another inbound assistant.' })),
  knowledgebase_id: orNull(IdField({ description: 'One of the caller\'s knowledge bases.' })),
  tool_ids: Type.Array(Id, { maxItems: 100, description: 'Mid-call tools of the caller; replaces the attached list.' }),
  folder_id: orNull(IdField({ description: 'One of the caller\'s folders (`/user/folders`); null: uncategorized.' })),
  label_ids: Type.Array(Id, { maxItems: 100, description: 'Labels of the caller (`/user/labels`); replaces the applied list, `[]` removes all.' }),
  endpoint_type: literals(['vad', 'ai'] as const),
  endpoint_sensitivity: between(0, 5),
  interrupt_sensitivity: between(0, 5),
  ambient_sound_volume: between(0, 1),
  post_call_evaluation: Type.Boolean(),
  send_webhook_only_on_completed: Type.Boolean(),
  include_recording_in_webhook: Type.Boolean(),
  is_webhook_active: Type.Boolean(),
  webhook_url: orNull(WebUrl),
  min_interrupt_words: orNull(betweenInt(0, 10)),
  variables: Variables,
  llm_temperature: between(0, 1),
  voice_stability: between(0, 1),
  voice_similarity: between(0, 1),
  speech_speed: between(0.7, 1.2),
  allow_interruptions: Type.Boolean(),
  end_call_on_voicemail: Type.Boolean(),
};

const PostCallItem = (namePattern: string, nameLength: { minLength?: number; maxLength?: number }) => Type.Object({
  name: Type.String({
    minLength: 1,
    ...nameLength,
    pattern: namePattern,
    [MESSAGES]: { pattern: 'The :attribute field must contain only letters, numbers and underscores.' },
  }),
  type: literals(['string', 'number', 'bool'] as const),
  description: Type.String({ minLength: 1, maxLength: 255 }),
}, { additionalProperties: false });

/** The current body of the interface (`name`, `type`, `mode`, `language_id`, `llm_model_id`, …). */
const currentFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  voice_id: shared.voice_id,
  language_id: IdField({ description: 'A language of `/user/assistants/languages`.' }),
  type: literals(['inbound', 'outbound'] as const),
  mode: literals(['pipeline', 'multimodal'] as const),
  timezone: shared.timezone,
  initial_message: Type.String({ minLength: 1, maxLength: 200 }),
  system_prompt: shared.system_prompt,
  llm_model_id: IdField({ description: 'Required when mode is pipeline.' }),
  multimodal_model_id: IdField({ description: 'Required when mode is multimodal.' }),
  chat_llm_fallback_id: orNull(IdField({ description: 'Chat model for tool calls of a multimodal assistant.' })),
  turn_detection_threshold: orNull(between(0, 1)),
  secondary_language_ids: Type.Array(Id, { maxItems: 20 }),
  knowledgebase_id: shared.knowledgebase_id,
  knowledgebase_mode: literals(['function_call', 'prompt'] as const),
  phone_number_id: shared.phone_number_id,
  tool_ids: shared.tool_ids,
  folder_id: shared.folder_id,
  label_ids: shared.label_ids,
  tools: Type.Array(BuiltinToolItem, { maxItems: 20, description: 'Built-in tools; replaces the stored list.' }),
  tts_emotion_enabled: Type.Boolean(),
  voice_stability: shared.voice_stability,
  voice_similarity: shared.voice_similarity,
  speech_speed: shared.speech_speed,
  llm_temperature: shared.llm_temperature,
  synthesizer_provider_id: orNull(IdField()),
  transcriber_provider_id: orNull(IdField()),
  allow_interruptions: shared.allow_interruptions,
  fillers: Type.Boolean(),
  filler_config: orNull(Type.Object({
    positive: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50 })),
    negative: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50 })),
    question: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50 })),
    neutral: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 50 })),
  }, { additionalProperties: false })),
  record: Type.Boolean(),
  enable_noise_cancellation: Type.Boolean(),
  wait_for_customer: Type.Boolean({ description: 'True: the customer speaks first.' }),
  max_duration: betweenInt(20, 1200),
  max_silence_duration: betweenInt(1, 360),
  max_initial_silence_duration: orNull(betweenInt(1, 120)),
  ringing_time: betweenInt(1, 60),
  reengagement_interval: betweenInt(7, 600),
  reengagement_prompt: orNull(Type.String({ maxLength: 1000 })),
  end_call_on_voicemail: shared.end_call_on_voicemail,
  voice_mail_message: orNull(Type.String({ maxLength: 1000 })),
  endpoint_type: shared.endpoint_type,
  endpoint_sensitivity: shared.endpoint_sensitivity,
  interrupt_sensitivity: shared.interrupt_sensitivity,
  min_interrupt_words: shared.min_interrupt_words,
  ambient_sound: literals(AMBIENT_SOUNDS),
  ambient_sound_volume: shared.ambient_sound_volume,
  is_webhook_active: shared.is_webhook_active,
  webhook_url: shared.webhook_url,
  send_webhook_only_on_completed: shared.send_webhook_only_on_completed,
  include_recording_in_webhook: shared.include_recording_in_webhook,
  post_call_evaluation: shared.post_call_evaluation,
  post_call_schema: Type.Array(PostCallItem('^[a-z0-9_]+$', { minLength: 3, maxLength: 16 }), { maxItems: 50 }),
  variables: shared.variables,
  conversation_inactivity_timeout: Type.Integer({
    minimum: 1, maximum: 1440, description: 'Minutes without a message after which a widget chat ends and its conversation-ended webhook goes out (default 30).',
  }),
  conversation_ended_retrigger: Type.Boolean({ description: 'Announce a chat again each time it goes quiet after more messages (default false: once).' }),
  conversation_ended_webhook_url: orNull(WebUrl),
  inbound_webhook_url: orNull(WebUrl),
};

const currentRequired = ['name', 'voice_id', 'language_id', 'type', 'mode', 'timezone', 'initial_message', 'system_prompt'] as const;

/** The legacy body (`assistant_name`, `calls_direction`, `engine_type`, `language` and `llm_model` by name, …). */
const legacyFields = {
  assistant_name: Type.String({ minLength: 1, maxLength: 255 }),
  voice_id: shared.voice_id,
  language: Type.String({ minLength: 1, maxLength: 100, description: 'Language name, e.g. `German`.' }),
  llm_model: Type.String({ minLength: 1, maxLength: 100, description: 'Model name, e.g. `GPT-4o`.' }),
  calls_direction: literals(['receive', 'make'] as const),
  engine_type: literals(['pipeline', 'multimodal'] as const),
  timezone: shared.timezone,
  initial_message: Type.String({ minLength: 1 }),
  system_prompt: shared.system_prompt,
  phone_number_id: shared.phone_number_id,
  knowledgebase_id: shared.knowledgebase_id,
  tool_ids: shared.tool_ids,
  folder_id: shared.folder_id,
  label_ids: shared.label_ids,
  endpoint_type: shared.endpoint_type,
  endpoint_sensitivity: shared.endpoint_sensitivity,
  interrupt_sensitivity: shared.interrupt_sensitivity,
  ambient_sound_volume: shared.ambient_sound_volume,
  post_call_evaluation: shared.post_call_evaluation,
  send_webhook_only_on_completed: shared.send_webhook_only_on_completed,
  include_recording_in_webhook: shared.include_recording_in_webhook,
  is_webhook_active: shared.is_webhook_active,
  webhook_url: shared.webhook_url,
  use_min_interrupt_words: Type.Boolean(),
  min_interrupt_words: shared.min_interrupt_words,
  variables: shared.variables,
  post_call_schema: Type.Array(PostCallItem('^[A-Za-z0-9_]+$', { maxLength: 64 }), { maxItems: 50 }),
  end_call_tool: Type.Object({ description: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false }),
  llm_temperature: shared.llm_temperature,
  voice_stability: shared.voice_stability,
  voice_similarity: shared.voice_similarity,
  speech_speed: shared.speech_speed,
  allow_interruptions: shared.allow_interruptions,
  filler_audios: Type.Boolean(),
  re_engagement_interval: betweenInt(7, 600),
  max_call_duration: betweenInt(20, 1200),
  max_silence_duration: betweenInt(1, 120),
  end_call_on_voicemail: shared.end_call_on_voicemail,
  noise_cancellation: Type.Boolean(),
  record_call: Type.Boolean(),
  who_speaks_first: literals(['AI assistant', 'Customer'] as const),
};

const legacyRequired = ['assistant_name', 'voice_id', 'language', 'llm_model', 'calls_direction', 'engine_type', 'timezone', 'initial_message', 'system_prompt'] as const;

function object<F extends Record<string, TSchema>>(fields: F, required: readonly string[], title: string) {
  const properties = Object.fromEntries(Object.entries(fields).map(([key, schema]) => [key, required.includes(key) ? schema : Type.Optional(schema)]));
  return Type.Object(properties, { additionalProperties: false, title });
}

export const CurrentCreateBody = object(currentFields, currentRequired, 'CreateAssistant');
export const LegacyCreateBody = object(legacyFields, legacyRequired, 'CreateAssistantLegacy');
export const CurrentUpdateBody = object(currentFields, [], 'UpdateAssistant');
export const LegacyUpdateBody = object(legacyFields, [], 'UpdateAssistantLegacy');

export type CurrentBody = Partial<Static<typeof CurrentUpdateBody>>;
export type LegacyBody = Partial<Static<typeof LegacyUpdateBody>>;

const LEGACY_ONLY = Object.keys(legacyFields).filter((key) => !(key in currentFields));
const CURRENT_MARKERS = ['name', 'type', 'mode', 'language_id'];

/**
 * A body is in the legacy spelling when it has a field only that spelling knows and none of the current
 * spelling's identifying fields; everything else (an empty body included) is read as the current spelling.
 */
export function isLegacyBody(body: Record<string, unknown>): boolean {
  return LEGACY_ONLY.some((key) => key in body) && !CURRENT_MARKERS.some((key) => key in body);
}

const legacyCondition = {
  anyOf: LEGACY_ONLY.map((key) => ({ required: [key] })),
  not: { anyOf: CURRENT_MARKERS.map((key) => ({ required: [key] })) },
};

/** Either spelling; the validator reads the body with the schema of its spelling (`isLegacyBody`). */
function eitherSpelling(current: TSchema, legacy: TSchema, description: string) {
  return Type.Unsafe<CurrentBody | LegacyBody>({ type: 'object', description, if: legacyCondition, then: legacy, else: current });
}

export const CreateAssistantBody = eitherSpelling(
  CurrentCreateBody,
  LegacyCreateBody,
  'The current body (`name`, `type`, `mode`, `language_id`, `llm_model_id` or `multimodal_model_id`, …) or the legacy one ' +
  '(`assistant_name`, `calls_direction`, `engine_type`, `language`, `llm_model`, …); both make the same assistant.',
);
export const UpdateAssistantBody = eitherSpelling(
  CurrentUpdateBody,
  LegacyUpdateBody,
  'Any field of the create body, in either spelling. Fields left out are unchanged; arrays and objects are replaced whole; null clears nullable fields.',
);

export const WebhookBody = Type.Object({
  assistant_id: IdField(),
  webhook_url: WebUrl,
}, { additionalProperties: false });

export const AssistantIdBody = Type.Object({ assistant_id: IdField() }, { additionalProperties: false });

/** Filters of the assistant lists; the paginated list keeps them in its page links. */
export const FilterQuery = Type.Object({
  folder_id: Type.Optional(IdInteger({ description: 'Only the assistants in this folder.' })),
  label_id: Type.Optional(IdInteger({ description: 'Only the assistants carrying this label.' })),
});

export const ListQuery = Type.Object({
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10, description: '1 to 100, default 10.' })),
  page: Type.Optional(PageNumber()),
  ...FilterQuery.properties,
});
