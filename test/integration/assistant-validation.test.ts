import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantRequests, startAssistantPlatform, type AssistantCatalog } from '../support/assistant-requests.ts';
import type { TestPlatform } from '../support/platform.ts';

// The rules a body to create an assistant must keep, field by field; creating and linking are in
// assistant-creation.test.ts.

let platform: TestPlatform;
let catalog: AssistantCatalog;
beforeAll(async () => {
  ({ platform, catalog } = await startAssistantPlatform());
});
afterAll(() => platform.close());

const { user, currentBody, legacyBody, create, read, errorsFor } = assistantRequests(() => ({ platform, catalog }));

describe('POST /api/user/assistant', () => {
  it('says which fields each spelling requires', async () => {
    const current = await platform.request('POST', '/user/assistant', { token: (await user()).token, body: {} });
    expect(current.body.message).toBe('The name field is required. (and 7 more errors)');
    expect(Object.keys(current.body.errors)).toEqual(['name', 'voice_id', 'language_id', 'type', 'mode', 'timezone', 'initial_message', 'system_prompt']);
    expect(await errorsFor({ assistant_name: 'Old style' })).toEqual({
      voice_id: ['The voice id field is required.'],
      language: ['The language field is required.'],
      llm_model: ['The llm model field is required.'],
      calls_direction: ['The calls direction field is required.'],
      engine_type: ['The engine type field is required.'],
      timezone: ['The timezone field is required.'],
      initial_message: ['The initial message field is required.'],
      system_prompt: ['The system prompt field is required.'],
    });
    expect(await errorsFor(currentBody({ llm_model_id: undefined }))).toEqual({ llm_model_id: ['The llm model id field is required when mode is pipeline.'] });
    expect(await errorsFor(currentBody({ mode: 'multimodal', voice_id: catalog.realtimeVoice }))).toEqual({
      multimodal_model_id: ['The multimodal model id field is required when mode is multimodal.'],
    });
  });

  it('keeps every ranged setting within its range, at both ends', async () => {
    const owner = await user();
    const cases: [string, unknown[], unknown[], string][] = [
      ['name', ['n'.repeat(255)], ['n'.repeat(256)], 'The name field must not be greater than 255 characters.'],
      ['initial_message', ['m'.repeat(200)], ['m'.repeat(201)], 'The initial message field must not be greater than 200 characters.'],
      ['speech_speed', [0.7, 1.2], [0.69, 1.21], 'The speech speed field must be between 0.7 and 1.2.'],
      ['llm_temperature', [0, 1], [-0.01, 1.01], 'The llm temperature field must be between 0 and 1.'],
      ['voice_stability', [0, 1], [-0.1, 1.1], 'The voice stability field must be between 0 and 1.'],
      ['voice_similarity', [0, 1], [-0.1, 1.1], 'The voice similarity field must be between 0 and 1.'],
      ['ambient_sound_volume', [0, 1], [-0.1, 1.1], 'The ambient sound volume field must be between 0 and 1.'],
      ['endpoint_sensitivity', [0, 5], [-0.1, 5.1], 'The endpoint sensitivity field must be between 0 and 5.'],
      ['interrupt_sensitivity', [0, 5], [-0.1, 5.1], 'The interrupt sensitivity field must be between 0 and 5.'],
      ['min_interrupt_words', [0, 10], [-1, 11], 'The min interrupt words field must be between 0 and 10.'],
      ['max_duration', [20, 1200], [19, 1201], 'The max duration field must be between 20 and 1200.'],
      ['max_silence_duration', [1, 360], [0, 361], 'The max silence duration field must be between 1 and 360.'],
      ['max_initial_silence_duration', [1, 120], [0, 121], 'The max initial silence duration field must be between 1 and 120.'],
      ['ringing_time', [1, 60], [0, 61], 'The ringing time field must be between 1 and 60.'],
      ['reengagement_interval', [7, 600], [6, 601], 'The reengagement interval field must be between 7 and 600.'],
      ['conversation_inactivity_timeout', [1, 1440], [0, 1441], 'The conversation inactivity timeout field must be between 1 and 1440.'],
      ['turn_detection_threshold', [0, 1], [-0.1, 1.1], 'The turn detection threshold field must be between 0 and 1.'],
      ['endpoint_type', ['vad', 'ai'], ['auto'], 'The selected endpoint type is invalid.'],
      ['ambient_sound', ['office', 'crowded_room'], ['rain'], 'The selected ambient sound is invalid.'],
    ];
    for (const [field, inside, outside, message] of cases) {
      for (const value of inside) {
        const response = await create(owner, currentBody({ [field]: value }));
        expect(response.status, `${field}=${String(value).slice(0, 20)}`).toBe(201);
      }
      for (const value of outside) expect(await errorsFor(currentBody({ [field]: value }), owner), `${field}=${String(value).slice(0, 20)}`).toEqual({ [field]: [message] });
    }
  });

  it('keeps the legacy settings within their documented ranges', async () => {
    const owner = await user();
    const cases: [string, unknown, unknown, string][] = [
      ['re_engagement_interval', 600, 601, 'The re engagement interval field must be between 7 and 600.'],
      ['max_call_duration', 20, 19, 'The max call duration field must be between 20 and 1200.'],
      ['max_silence_duration', 120, 121, 'The max silence duration field must be between 1 and 120.'],
      ['end_call_tool', { description: 'd'.repeat(500) }, { description: 'd'.repeat(501) }, 'The end call tool.description field must not be greater than 500 characters.'],
      ['who_speaks_first', 'AI assistant', 'Robot', 'The selected who speaks first is invalid.'],
    ];
    for (const [field, inside, outside, message] of cases) {
      expect((await create(owner, legacyBody({ [field]: inside }))).status, field).toBe(201);
      const errors = await errorsFor(legacyBody({ [field]: outside }), owner);
      expect(Object.values(errors).flat(), field).toEqual([message]);
    }
    expect(await errorsFor(legacyBody({ use_min_interrupt_words: true }), owner)).toEqual({
      min_interrupt_words: ['The min interrupt words field is required when use min interrupt words is true.'],
    });
  });

  it('requires a voice that exists and suits the engine mode', async () => {
    expect(await errorsFor(currentBody({ voice_id: 999_999 }))).toEqual({ voice_id: ['The selected voice id is invalid.'] });
    expect(await errorsFor(currentBody({ voice_id: catalog.realtimeVoice }))).toEqual({ voice_id: ['The selected voice is not compatible with the chosen engine type.'] });
    expect(await errorsFor(currentBody({ mode: 'multimodal', multimodal_model_id: catalog.realtime }))).toEqual({
      voice_id: ['The selected voice is not compatible with the chosen engine type.'],
    });
    expect(await errorsFor(legacyBody({ voice_id: 999_999 }))).toEqual({ voice_id: ['The selected voice id is invalid.'] });
  });

  it('requires a real IANA time zone', async () => {
    const owner = await user();
    expect((await create(owner, currentBody({ timezone: 'America/Argentina/Buenos_Aires' }))).status).toBe(201);
    expect((await create(owner, currentBody({ timezone: 'UTC' }))).status).toBe(201);
    for (const timezone of ['Mars/Olympus', 'Europe/Berlin ', 'GMT+25']) {
      expect(await errorsFor(currentBody({ timezone }), owner)).toEqual({ timezone: ['The timezone field must be a valid timezone.'] });
    }
  });

  it('requires webhook_url when the webhook is active, with the documented error on webhook_url', async () => {
    const text = 'The webhook url field is required when is webhook active is true.';
    expect(await errorsFor(currentBody({ is_webhook_active: true }))).toEqual({ webhook_url: [text] });
    expect(await errorsFor(legacyBody({ is_webhook_active: true, webhook_url: null }))).toEqual({ webhook_url: [text] });
    expect(await errorsFor(currentBody({ webhook_url: 'not-a-url' }))).toEqual({ webhook_url: ['The webhook url field must be a valid URL.'] });
    expect((await create(await user(), currentBody({ is_webhook_active: false }))).status).toBe(201);
  });

  it('keeps multimodal assistants to their rules', async () => {
    const owner = await user();
    const body = currentBody({ mode: 'multimodal', voice_id: catalog.realtimeVoice, multimodal_model_id: catalog.realtime, llm_model_id: undefined });
    const created = await create(owner, body);
    expect(created.status).toBe(201);
    expect(await read(owner, created.body.data.id)).toMatchObject({
      knowledgebase_mode: 'function_call', synthesizer_provider_id: null, transcriber_provider_id: null, allow_interruptions: true,
    });
    expect(await errorsFor({ ...body, allow_interruptions: false, knowledgebase_mode: 'prompt', fillers: true })).toEqual({
      allow_interruptions: ['Interruptions cannot be disabled in multimodal mode.'],
      fillers: ['Fillers are only available in pipeline mode.'],
      knowledgebase_mode: ['Only function_call mode is available for multimodal assistants.'],
    });
    expect(await errorsFor({ ...body, multimodal_model_id: catalog.gpt4o })).toEqual({ multimodal_model_id: ['The selected multimodal model id is invalid.'] });
  });
});
