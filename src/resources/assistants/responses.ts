import { Type } from '@sinclair/typebox';
import { IsoTimestamp, LaravelPage, nullable } from '../../api/schemas.ts';

/** Response shapes of the assistant routes, for the OpenAPI document. */
export const AssistantSummary = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.String({ enum: ['active', 'inactive'] }),
  type: Type.String({ enum: ['inbound', 'outbound'] }),
  mode: Type.String({ enum: ['pipeline', 'multimodal'] }),
}, { title: 'AssistantSummary' });

export const AssistantEnvelope = (message: string) => Type.Object({ message: Type.Literal(message), data: AssistantSummary });
export const EmptyDataMessage = (message: string) => Type.Object({ message: Type.Literal(message), data: Type.Array(Type.Never(), { maxItems: 0 }) });

const int = nullable(Type.Integer());
const num = Type.Number();

export const AssistantItem = Type.Object({
  id: Type.Integer(),
  uuid: Type.String({ format: 'uuid', description: 'The public id used by the conversation endpoints.' }),
  user_id: Type.Integer(),
  name: Type.String(),
  type: Type.String({ enum: ['inbound', 'outbound'] }),
  mode: Type.String({ enum: ['pipeline', 'multimodal'] }),
  status: Type.String({ enum: ['active', 'inactive'] }),
  phone_number_id: int,
  voice_id: int,
  language_id: int,
  language: nullable(Type.String({ description: 'The language\'s name.' })),
  secondary_language_ids: Type.Array(Type.Integer()),
  llm_model_id: int,
  multimodal_model_id: int,
  chat_llm_fallback_id: int,
  synthesizer_provider_id: int,
  transcriber_provider_id: int,
  knowledgebase_id: int,
  knowledgebase_mode: nullable(Type.String({ enum: ['function_call', 'prompt'] })),
  folder_id: nullable(Type.Integer({ description: 'The folder the assistant is in; null: uncategorized.' })),
  label_ids: Type.Array(Type.Integer(), { description: 'Applied labels.' }),
  timezone: Type.String(),
  initial_message: Type.String(),
  system_prompt: Type.String(),
  variables: Type.Record(Type.String(), Type.Unknown()),
  tool_ids: Type.Array(Type.Integer(), { description: 'Attached mid-call tools.' }),
  tools: Type.Array(Type.Object({ type: Type.String(), data: Type.Record(Type.String(), Type.Unknown()) }), { description: 'Built-in tools, nested.' }),
  post_call_evaluation: Type.Boolean(),
  post_call_schema: Type.Array(Type.Object({ name: Type.String(), type: Type.String(), description: Type.String() })),
  tts_emotion_enabled: Type.Boolean(),
  voice_stability: num,
  voice_similarity: num,
  speech_speed: num,
  llm_temperature: num,
  turn_detection_threshold: nullable(num),
  allow_interruptions: Type.Boolean(),
  fillers: Type.Boolean(),
  filler_config: nullable(Type.Record(Type.String(), Type.Array(Type.String()))),
  record: Type.Boolean(),
  enable_noise_cancellation: Type.Boolean(),
  wait_for_customer: Type.Boolean(),
  max_duration: Type.Integer(),
  max_silence_duration: Type.Integer(),
  max_initial_silence_duration: int,
  ringing_time: Type.Integer(),
  reengagement_interval: Type.Integer(),
  reengagement_prompt: nullable(Type.String()),
  end_call_on_voicemail: Type.Boolean(),
  voice_mail_message: nullable(Type.String()),
  endpoint_type: Type.String({ enum: ['vad', 'ai'] }),
  endpoint_sensitivity: num,
  interrupt_sensitivity: num,
  min_interrupt_words: int,
  ambient_sound: Type.String(),
  ambient_sound_volume: num,
  is_webhook_active: Type.Boolean(),
  webhook_url: nullable(Type.String()),
  send_webhook_only_on_completed: Type.Boolean(),
  include_recording_in_webhook: Type.Boolean(),
  conversation_inactivity_timeout: Type.Integer(),
  conversation_ended_retrigger: Type.Boolean(),
  conversation_ended_webhook_url: nullable(Type.String()),
  inbound_webhook_url: nullable(Type.String()),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'Assistant' });


export const AssistantPage = LaravelPage(AssistantItem, 'AssistantPage');

export const OutboundItem = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  name: Type.String(),
  type: Type.Literal('outbound'),
  mode: Type.String(),
  status: Type.String(),
  voice_id: int,
  language_id: int,
  timezone: Type.String(),
  initial_message: Type.String(),
  system_prompt: Type.String(),
  variables: Type.Record(Type.String(), Type.Unknown()),
  webhook_url: nullable(Type.String()),
  is_webhook_active: Type.Boolean(),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'OutboundAssistant' });
