import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadVoiceSettings } from '../../src/resources/assistants/voice-profile.ts';
import { DEFAULT_FILLER_PHRASES } from '../../src/voice/settings.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

describe('loadVoiceSettings', () => {
  let platform: TestPlatform;

  beforeAll(async () => {
    // A realtime model is configured (never called), so the catalog lists the multimodal voices.
    platform = await startTestPlatform({ env: { REALTIME_URL: 'ws://127.0.0.1:9/v1/realtime' } });
  });
  afterAll(async () => {
    await platform.close();
  });

  it('reads every speech setting, in milliseconds, with the voice and language codes of the catalogs', async () => {
    const owner = await createTestUser(platform.database.knex);
    const assistant = await createTestAssistant(platform, owner, {
      wait_for_customer: true, speech_speed: 1.1, endpoint_type: 'ai', endpoint_sensitivity: 2, allow_interruptions: true,
      interrupt_sensitivity: 1.5, min_interrupt_words: 3, reengagement_interval: 12, reengagement_prompt: 'Ask if they are there.',
      max_silence_duration: 20, fillers: true, filler_config: { positive: ['Great!'], neutral: ['Hmm, let me see.'] }, record: true,
      enable_noise_cancellation: false, ambient_sound: 'cafe', ambient_sound_volume: 0.3, end_call_on_voicemail: false,
      voice_mail_message: 'Hi {{customer_name}}, please call us back.',
    });
    const voice = await platform.database.knex('assistants as a').join('voices as v', 'v.id', 'a.voice_id')
      .join('synthesizer_providers as s', 's.id', 'v.synthesizer_provider_id')
      .leftJoin('transcriber_providers as t', 't.id', 'a.transcriber_provider_id')
      .where('a.id', assistant.id).first<{ providerVoiceId: string; code: string; transcriber: string | null }>('v.provider_voice_id', 's.code', 't.code as transcriber');
    const settings = await loadVoiceSettings(platform.database.knex, { uuid: assistant.uuid });
    expect(settings).toEqual({
      mode: 'pipeline', realtimeModel: undefined, waitForCustomer: true, synthesizer: voice.code, voiceId: voice.providerVoiceId, transcriber: voice.transcriber ?? undefined,
      sttLanguage: 'en-US', ttsLanguage: 'en-US', speechSpeed: 1.1, endpointType: 'ai', endpointSensitivity: 2,
      allowInterruptions: true, interruptSensitivity: 1.5, minInterruptWords: 3, reengagementMs: 12_000,
      reengagementPrompt: 'Ask if they are there.', maxSilenceMs: 20_000, fillers: true, fillerPhrases: ['Hmm, let me see.'],
      record: true, noiseCancellation: false, ambientSound: 'cafe', ambientVolume: 0.3,
      endCallOnVoicemail: false, voicemailMessage: 'Hi {{customer_name}}, please call us back.',
    });
  });

  it('reads a multimodal assistant\'s engine, its realtime model\'s provider name and its voice', async () => {
    const owner = await createTestUser(platform.database.knex);
    const get = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as { id: number; code?: string }[];
    const voice = (await get('/user/assistants/voices?mode=multimodal'))[0]!;
    const model = (await get('/user/assistants/models?type=multimodal'))[0]!;
    const assistant = await createTestAssistant(platform, owner, { mode: 'multimodal', voice_id: voice.id, llm_model_id: undefined, multimodal_model_id: model.id });
    const stored = await platform.database.knex('language_models').where({ id: model.id }).first<{ providerModel: string }>('provider_model');
    const voiceRow = await platform.database.knex('voices').where({ id: voice.id }).first<{ providerVoiceId: string }>('provider_voice_id');
    const settings = await loadVoiceSettings(platform.database.knex, { id: assistant.id });
    expect(settings).toMatchObject({ mode: 'multimodal', realtimeModel: stored.providerModel, voiceId: voiceRow.providerVoiceId, synthesizer: undefined });
  });

  it('gives the documented defaults for an assistant created with only what is required', async () => {
    const owner = await createTestUser(platform.database.knex);
    const assistant = await createTestAssistant(platform, owner);
    const settings = await loadVoiceSettings(platform.database.knex, { id: assistant.id });
    expect(settings).toMatchObject({
      waitForCustomer: false, speechSpeed: 1, endpointType: 'vad', endpointSensitivity: 0.5, allowInterruptions: true,
      interruptSensitivity: 0.5, minInterruptWords: null, reengagementMs: 30_000, maxSilenceMs: 40_000, fillers: false,
      fillerPhrases: DEFAULT_FILLER_PHRASES, record: false, ambientSound: 'off', ambientVolume: 0.5,
      endCallOnVoicemail: true, voicemailMessage: null,
    });
    expect(await loadVoiceSettings(platform.database.knex, { id: 999_999_999 })).toBeUndefined();
  });
});
