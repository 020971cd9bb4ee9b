import type { Knex } from 'knex';
import { languagePack } from '../../lib/languages/index.ts';
import { AMBIENT_SOUNDS, type AmbientSound, type VoiceSettings } from '../../voice/settings.ts';
import type { FillerConfig } from './model.ts';

/** An assistant's speech settings and what its voice and language resolve to in the catalogs, as one row. */
export interface StoredVoiceProfile {
  mode: string;
  realtimeModel: string | null;
  waitForCustomer: boolean;
  speechSpeed: number;
  endpointType: string;
  endpointSensitivity: number;
  allowInterruptions: boolean;
  interruptSensitivity: number;
  minInterruptWords: number | null;
  reengagementInterval: number;
  reengagementPrompt: string | null;
  maxSilenceDuration: number;
  fillers: boolean;
  fillerConfig: FillerConfig | null;
  record: boolean;
  enableNoiseCancellation: boolean;
  ambientSound: string;
  ambientSoundVolume: number;
  endCallOnVoicemail: boolean;
  voiceMailMessage: string | null;
  providerVoiceId: string | null;
  synthesizerCode: string | null;
  transcriberCode: string | null;
  sttCode: string | null;
  ttsCode: string | null;
}

/**
 * The query for an assistant's voice profile. The synthesizer is the one the assistant names, or else its
 * voice's; the language codes come from the assistant's language; a multimodal assistant's model is its provider name.
 */
export function voiceProfileQuery(knex: Knex, where: { uuid: string } | { id: number }): Knex.QueryBuilder {
  return knex('assistants as a')
    .leftJoin('voices as v', 'v.id', 'a.voice_id')
    .leftJoin('synthesizer_providers as sp', 'sp.id', knex.raw('coalesce(a.synthesizer_provider_id, v.synthesizer_provider_id)'))
    .leftJoin('transcriber_providers as tp', 'tp.id', 'a.transcriber_provider_id')
    .leftJoin('languages as l', 'l.id', 'a.language_id')
    .leftJoin('language_models as mm', 'mm.id', 'a.multimodal_model_id')
    .where('uuid' in where ? { 'a.uuid': where.uuid } : { 'a.id': where.id })
    .select(
      'a.mode', 'mm.provider_model as realtime_model', 'a.wait_for_customer', 'a.speech_speed', 'a.endpoint_type', 'a.endpoint_sensitivity', 'a.allow_interruptions',
      'a.interrupt_sensitivity', 'a.min_interrupt_words', 'a.reengagement_interval', 'a.reengagement_prompt',
      'a.max_silence_duration', 'a.fillers', 'a.filler_config', 'a.record', 'a.enable_noise_cancellation', 'a.ambient_sound',
      'a.ambient_sound_volume', 'a.end_call_on_voicemail', 'a.voice_mail_message', 'v.provider_voice_id', 'sp.code as synthesizer_code', 'tp.code as transcriber_code', 'l.stt_code',
      'l.tts_code',
    );
}

/** The assistant's fillers; without any, those of the language it speaks (BCP 47). */
function fillerPhrases(config: FillerConfig | null, language: string | null): string[] {
  // A tool is running: the neutral acknowledgements fit; without them, any the assistant configured.
  const neutral = config?.neutral?.filter((phrase) => phrase.trim()) ?? [];
  if (neutral.length > 0) return neutral;
  const any = Object.values(config ?? {}).flat().filter((phrase) => phrase.trim());
  return any.length > 0 ? any : [...languagePack(language ?? undefined).fillerPhrases];
}

/** The engine's settings from the stored row: seconds to milliseconds, catalog codes, defaults for what is unset. */
export function toVoiceSettings(row: StoredVoiceProfile): VoiceSettings {
  const ambient = (AMBIENT_SOUNDS as readonly string[]).includes(row.ambientSound) ? row.ambientSound as AmbientSound : 'off';
  const multimodal = row.mode === 'multimodal';
  return {
    mode: multimodal ? 'multimodal' : 'pipeline',
    realtimeModel: multimodal ? row.realtimeModel ?? undefined : undefined,
    waitForCustomer: row.waitForCustomer,
    synthesizer: row.synthesizerCode ?? undefined,
    voiceId: row.providerVoiceId ?? undefined,
    transcriber: row.transcriberCode ?? undefined,
    sttLanguage: row.sttCode ?? 'en-US',
    ttsLanguage: row.ttsCode ?? 'en-US',
    speechSpeed: Number(row.speechSpeed),
    endpointType: row.endpointType === 'ai' ? 'ai' : 'vad',
    endpointSensitivity: Number(row.endpointSensitivity),
    allowInterruptions: row.allowInterruptions,
    interruptSensitivity: Number(row.interruptSensitivity),
    // Zero words is the feature switched on with nothing to count: the same as off.
    minInterruptWords: row.minInterruptWords ? row.minInterruptWords : null,
    reengagementMs: row.reengagementInterval * 1000,
    reengagementPrompt: row.reengagementPrompt,
    maxSilenceMs: row.maxSilenceDuration * 1000,
    fillers: row.fillers,
    fillerPhrases: fillerPhrases(row.fillerConfig, row.ttsCode),
    record: row.record,
    noiseCancellation: row.enableNoiseCancellation,
    ambientSound: ambient,
    ambientVolume: Number(row.ambientSoundVolume),
    endCallOnVoicemail: row.endCallOnVoicemail,
    voicemailMessage: row.voiceMailMessage?.trim() ? row.voiceMailMessage : null,
  };
}

/** Loads an assistant's speech settings by its public UUID or its id, in one query; undefined when there is none. */
export async function loadVoiceSettings(knex: Knex, where: { uuid: string } | { id: number }): Promise<VoiceSettings | undefined> {
  const row = await voiceProfileQuery(knex, where).first<StoredVoiceProfile | undefined>();
  return row ? toVoiceSettings(row) : undefined;
}
