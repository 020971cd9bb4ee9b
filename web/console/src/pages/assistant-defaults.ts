/**
 * What a new assistant's form shows before the user changes anything: the API's defaults for each optional
 * setting (src/resources/assistants/model.ts DEFAULT_SETTINGS; test/unit/console-assistant-defaults.test.ts keeps
 * the two equal), so the form shows the values an assistant created without them would have.
 */
export const NEW_ASSISTANT = {
  post_call_evaluation: true,
  tts_emotion_enabled: true,
  voice_stability: 0.7,
  voice_similarity: 0.5,
  speech_speed: 1,
  llm_temperature: 0.1,
  allow_interruptions: true,
  fillers: false,
  record: false,
  enable_noise_cancellation: true,
  wait_for_customer: false,
  max_duration: 600,
  max_silence_duration: 40,
  ringing_time: 30,
  reengagement_interval: 30,
  end_call_on_voicemail: true,
  endpoint_type: 'vad',
  endpoint_sensitivity: 0.5,
  interrupt_sensitivity: 0.5,
  ambient_sound: 'off',
  ambient_sound_volume: 0.5,
  is_webhook_active: false,
  send_webhook_only_on_completed: true,
  include_recording_in_webhook: true,
  conversation_inactivity_timeout: 30,
  conversation_ended_retrigger: false,
} as const;
