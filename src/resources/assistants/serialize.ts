import type { SecretBox } from '../../lib/secrets.ts';
import { isoTimestamp } from '../../lib/time.ts';
import { SECRET_FIELDS, type StoredBuiltinTool } from './builtin-tools.ts';
import type { Assistant } from './model.ts';
import { secretPurpose } from './rules.ts';

export interface AssistantExtras {
  toolIds: number[];
  labelIds: number[];
  languageName: string | null;
}

/** The short form of the create and update responses. */
export function assistantSummary(assistant: Assistant) {
  return { id: assistant.id, name: assistant.name, status: assistant.status, type: assistant.type, mode: assistant.mode };
}

/** Built-in tools as listed: nested `{type, data}`, secret fields shown to their owner in clear. */
function builtinTools(secrets: SecretBox, tools: StoredBuiltinTool[]) {
  return tools.map(({ type, data }) => {
    const shown = { ...data };
    for (const field of SECRET_FIELDS[type] ?? []) {
      if (typeof shown[field] === 'string') shown[field] = secrets.decrypt(shown[field], secretPurpose(type, field));
    }
    return { type, data: shown };
  });
}

/** One assistant as the list and the single read show it. */
export function assistantItem(assistant: Assistant, extras: AssistantExtras, secrets: SecretBox) {
  return {
    id: assistant.id,
    uuid: assistant.uuid,
    user_id: assistant.userId,
    name: assistant.name,
    type: assistant.type,
    mode: assistant.mode,
    status: assistant.status,
    phone_number_id: assistant.phoneNumberId,
    voice_id: assistant.voiceId,
    language_id: assistant.languageId,
    language: extras.languageName,
    secondary_language_ids: assistant.secondaryLanguageIds,
    llm_model_id: assistant.llmModelId,
    multimodal_model_id: assistant.multimodalModelId,
    chat_llm_fallback_id: assistant.chatLlmFallbackId,
    synthesizer_provider_id: assistant.synthesizerProviderId,
    transcriber_provider_id: assistant.transcriberProviderId,
    knowledgebase_id: assistant.knowledgebaseId,
    knowledgebase_mode: assistant.knowledgebaseMode,
    folder_id: assistant.folderId,
    label_ids: extras.labelIds,
    timezone: assistant.timezone,
    initial_message: assistant.initialMessage,
    system_prompt: assistant.systemPrompt,
    variables: assistant.variables,
    tool_ids: extras.toolIds,
    tools: builtinTools(secrets, assistant.tools),
    post_call_evaluation: assistant.postCallEvaluation,
    post_call_schema: assistant.postCallSchema,
    tts_emotion_enabled: assistant.ttsEmotionEnabled,
    voice_stability: assistant.voiceStability,
    voice_similarity: assistant.voiceSimilarity,
    speech_speed: assistant.speechSpeed,
    llm_temperature: assistant.llmTemperature,
    turn_detection_threshold: assistant.turnDetectionThreshold,
    allow_interruptions: assistant.allowInterruptions,
    fillers: assistant.fillers,
    filler_config: assistant.fillerConfig,
    record: assistant.record,
    enable_noise_cancellation: assistant.enableNoiseCancellation,
    wait_for_customer: assistant.waitForCustomer,
    max_duration: assistant.maxDuration,
    max_silence_duration: assistant.maxSilenceDuration,
    max_initial_silence_duration: assistant.maxInitialSilenceDuration,
    ringing_time: assistant.ringingTime,
    reengagement_interval: assistant.reengagementInterval,
    reengagement_prompt: assistant.reengagementPrompt,
    end_call_on_voicemail: assistant.endCallOnVoicemail,
    voice_mail_message: assistant.voiceMailMessage,
    endpoint_type: assistant.endpointType,
    endpoint_sensitivity: assistant.endpointSensitivity,
    interrupt_sensitivity: assistant.interruptSensitivity,
    min_interrupt_words: assistant.minInterruptWords,
    ambient_sound: assistant.ambientSound,
    ambient_sound_volume: assistant.ambientSoundVolume,
    is_webhook_active: assistant.isWebhookActive,
    webhook_url: assistant.webhookUrl,
    send_webhook_only_on_completed: assistant.sendWebhookOnlyOnCompleted,
    include_recording_in_webhook: assistant.includeRecordingInWebhook,
    conversation_inactivity_timeout: assistant.conversationInactivityTimeout,
    conversation_ended_retrigger: assistant.conversationEndedRetrigger,
    conversation_ended_webhook_url: assistant.conversationEndedWebhookUrl,
    inbound_webhook_url: assistant.inboundWebhookUrl,
    created_at: isoTimestamp(assistant.createdAt),
    updated_at: isoTimestamp(assistant.updatedAt),
  };
}

/** The outbound list's shorter item. */
export function outboundItem(assistant: Assistant) {
  return {
    id: assistant.id,
    user_id: assistant.userId,
    name: assistant.name,
    type: assistant.type,
    mode: assistant.mode,
    status: assistant.status,
    voice_id: assistant.voiceId,
    language_id: assistant.languageId,
    timezone: assistant.timezone,
    initial_message: assistant.initialMessage,
    system_prompt: assistant.systemPrompt,
    variables: assistant.variables,
    webhook_url: assistant.webhookUrl,
    is_webhook_active: assistant.isWebhookActive,
    created_at: isoTimestamp(assistant.createdAt),
    updated_at: isoTimestamp(assistant.updatedAt),
  };
}
