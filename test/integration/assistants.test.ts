import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { everySpeechProvider } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

let platform: TestPlatform;
const catalog = { english: 0, german: 0, pipelineVoice: 0, germanVoice: 0, realtimeVoice: 0, gpt4o: 0, realtime: 0, firstLlm: 0 };

beforeAll(async () => {
  platform = await startTestPlatform({ env: everySpeechProvider });
  const owner = await createTestUser(platform.database.knex);
  const get = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as { id: number; name: string; iso_2?: string; code?: string }[];
  const languages = await get('/user/assistants/languages');
  catalog.english = languages.find((language) => language.iso_2 === 'en')?.id ?? 0;
  catalog.german = languages.find((language) => language.iso_2 === 'de')?.id ?? 0;
  catalog.pipelineVoice = (await get(`/user/assistants/voices?mode=pipeline&language_id=${catalog.english}`))[0]?.id ?? 0;
  catalog.germanVoice = (await get('/user/assistants/voices?mode=pipeline')).find((voice) => voice.name === 'German Female (eSpeak)')?.id ?? 0;
  catalog.realtimeVoice = (await get('/user/assistants/voices?mode=multimodal'))[0]?.id ?? 0;
  const llms = await get('/user/assistants/models');
  catalog.firstLlm = llms[0]?.id ?? 0;
  catalog.gpt4o = llms.find((model) => model.name === 'GPT-4o')?.id ?? 0;
  catalog.realtime = (await get('/user/assistants/models?type=multimodal')).find((model) => model.code === 'gpt-4o-realtime')?.id ?? 0;
});
afterAll(() => platform.close());

const user = (): Promise<TestUser> => createTestUser(platform.database.knex);

const currentBody = (overrides: Record<string, unknown> = {}) => ({
  name: 'Front desk',
  voice_id: catalog.pipelineVoice,
  language_id: catalog.english,
  type: 'outbound',
  mode: 'pipeline',
  llm_model_id: catalog.gpt4o,
  timezone: 'Europe/Berlin',
  initial_message: 'Hello {{customer_name}}, this is the front desk.',
  system_prompt: 'You book tables. Be brief.',
  ...overrides,
});

const legacyBody = (overrides: Record<string, unknown> = {}) => ({
  assistant_name: 'Front desk',
  voice_id: catalog.pipelineVoice,
  language: 'English',
  llm_model: 'GPT-4o',
  calls_direction: 'make',
  engine_type: 'pipeline',
  timezone: 'Europe/Berlin',
  initial_message: 'Hello {{customer_name}}, this is the front desk.',
  system_prompt: 'You book tables. Be brief.',
  ...overrides,
});

async function create(owner: TestUser, body: Record<string, unknown>) {
  return platform.request('POST', '/user/assistant', { token: owner.token, body });
}

async function read(owner: TestUser, id: number) {
  return (await platform.request<Record<string, any>>('GET', `/user/assistant/${id}`, { token: owner.token })).body;
}

/** The 422 errors of creating an assistant from this body. */
async function errorsFor(body: Record<string, unknown>, owner?: TestUser) {
  const response = await create(owner ?? await user(), body);
  expect(response.status, JSON.stringify(response.body)).toBe(422);
  return response.body.errors as Record<string, string[]>;
}

async function insertNumber(owner: TestUser, type: 'normal' | 'sip' | 'caller_id' = 'normal'): Promise<number> {
  const phoneNumber = `+4930${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const [row] = await platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber, countryCode: 'DE', type }).returning<{ id: number }[]>('id');
  return row?.id ?? 0;
}

describe('POST /api/user/assistant', () => {
  it('creates the assistant: 201 with the summary, a uuid, and the documented defaults', async () => {
    const owner = await user();
    const response = await create(owner, currentBody());
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      message: 'Assistant created successfully',
      data: { id: expect.any(Number), name: 'Front desk', status: 'active', type: 'outbound', mode: 'pipeline' },
    });
    const stored = await read(owner, response.body.data.id);
    expect(stored).toMatchObject({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/), user_id: owner.id, language: 'English', language_id: catalog.english,
      llm_model_id: catalog.gpt4o, multimodal_model_id: null, synthesizer_provider_id: expect.any(Number), transcriber_provider_id: expect.any(Number),
      voice_stability: 0.7, voice_similarity: 0.5, speech_speed: 1, llm_temperature: 0.1, tts_emotion_enabled: true, allow_interruptions: true,
      fillers: false, record: false, enable_noise_cancellation: true, wait_for_customer: false, max_duration: 600, max_silence_duration: 40,
      ringing_time: 30, reengagement_interval: 30, end_call_on_voicemail: true, endpoint_type: 'vad', endpoint_sensitivity: 0.5,
      interrupt_sensitivity: 0.5, ambient_sound: 'off', ambient_sound_volume: 0.5, is_webhook_active: false, webhook_url: null,
      send_webhook_only_on_completed: true, include_recording_in_webhook: true, post_call_evaluation: true, conversation_inactivity_timeout: 30,
      conversation_ended_retrigger: false, knowledgebase_mode: 'prompt', min_interrupt_words: null, tools: [], tool_ids: [], variables: {},
      post_call_schema: [], phone_number_id: null, knowledgebase_id: null,
    });
  });

  it('is also reachable as POST /api/user/assistants', async () => {
    const owner = await user();
    const response = await platform.request('POST', '/user/assistants', { token: owner.token, body: currentBody() });
    expect(response.status).toBe(201);
  });

  it('stores the same assistant from the legacy spelling as from the current one', async () => {
    const owner = await user();
    const webhook = 'https://hooks.example.com/calls';
    const current = await create(owner, currentBody({
      type: 'inbound', fillers: true, reengagement_interval: 45, max_duration: 900, enable_noise_cancellation: false, record: true,
      wait_for_customer: true, min_interrupt_words: 3, tools: [{ type: 'end_call', description: 'When the caller says goodbye' }],
      is_webhook_active: true, webhook_url: webhook, speech_speed: 0.8, variables: { shop: 'Mitte' },
    }));
    const legacy = await create(owner, legacyBody({
      calls_direction: 'receive', filler_audios: true, re_engagement_interval: 45, max_call_duration: 900, noise_cancellation: false,
      record_call: true, who_speaks_first: 'Customer', use_min_interrupt_words: true, min_interrupt_words: 3,
      end_call_tool: { description: 'When the caller says goodbye' }, is_webhook_active: true, webhook_url: webhook, speech_speed: 0.8,
      variables: { shop: 'Mitte' },
    }));
    expect(current.status).toBe(201);
    expect(legacy.status).toBe(201);
    expect(legacy.body.data).toEqual({ ...current.body.data, id: legacy.body.data.id });
    const strip = ({ id: _id, uuid: _uuid, created_at: _created, updated_at: _updated, ...rest }: Record<string, unknown>) => rest;
    const a = strip(await read(owner, current.body.data.id));
    expect(a).toMatchObject({ type: 'inbound', fillers: true, wait_for_customer: true, min_interrupt_words: 3, record: true });
    expect(strip(await read(owner, legacy.body.data.id))).toEqual(a);
  });

  it('maps legacy names of languages and models, case-insensitively, and refuses unknown ones on their own fields', async () => {
    const owner = await user();
    const created = await create(owner, legacyBody({ language: 'german', llm_model: 'gpt-4o-mini', voice_id: catalog.germanVoice }));
    expect(created.status).toBe(201);
    expect(await read(owner, created.body.data.id)).toMatchObject({ language_id: catalog.german, llm_model_id: catalog.firstLlm });
    expect(await errorsFor(legacyBody({ language: 'Klingon', llm_model: 'GPT-9' }))).toEqual({
      language: ['The selected language is invalid.'],
      llm_model: ['The selected llm model is invalid.'],
    });
    const multimodal = await create(owner, legacyBody({ engine_type: 'multimodal', llm_model: 'GPT-4o', voice_id: catalog.realtimeVoice }));
    expect(await read(owner, multimodal.body.data.id)).toMatchObject({ mode: 'multimodal', multimodal_model_id: catalog.realtime, llm_model_id: null });
  });

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

  it('attaches only the caller\'s tools; deleting a tool detaches it', async () => {
    const owner = await user();
    const tool = async (who: TestUser, name: string) => (await platform.request('POST', '/user/tools', {
      token: who.token, body: { name, description: 'A tool', endpoint: 'https://example.com', method: 'GET' },
    })).body.data.id as number;
    const mine = [await tool(owner, 'first'), await tool(owner, 'second')];
    const foreign = await tool(await user(), 'foreign');
    const created = await create(owner, currentBody({ tool_ids: mine }));
    expect((await read(owner, created.body.data.id)).tool_ids).toEqual(mine);
    expect(await errorsFor(currentBody({ tool_ids: [mine[0], foreign] }), owner)).toEqual({ 'tool_ids.1': ['The selected tool ids.1 is invalid.'] });
    await platform.request('DELETE', `/user/tools/${mine[0]}`, { token: owner.token });
    expect((await read(owner, created.body.data.id)).tool_ids).toEqual([mine[1]]);
  });

  it('takes only the caller\'s knowledge base', async () => {
    const owner = await user();
    const other = await user();
    const knowledgebase = async (who: TestUser) => (await platform.database.knex('knowledgebases').insert({ userId: who.id, name: 'KB' }).returning<{ id: number }[]>('id'))[0]?.id;
    const mine = await knowledgebase(owner);
    const created = await create(owner, currentBody({ knowledgebase_id: mine }));
    expect((await read(owner, created.body.data.id)).knowledgebase_id).toBe(mine);
    expect(await errorsFor(currentBody({ knowledgebase_id: await knowledgebase(other) }), owner)).toEqual({
      knowledgebase_id: ['The selected knowledgebase id is invalid.'],
    });
  });

  it('assigns numbers by the documented rules', async () => {
    const owner = await user();
    const normal = await insertNumber(owner);
    const callerId = await insertNumber(owner, 'caller_id');
    const foreign = await insertNumber(await user());
    expect((await create(owner, currentBody({ type: 'inbound', phone_number_id: normal }))).status).toBe(201);
    expect(await errorsFor(currentBody({ type: 'inbound', phone_number_id: normal }), owner)).toEqual({
      phone_number_id: ['The phone number is already assigned to another inbound assistant.'],
    });
    expect(await errorsFor(currentBody({ type: 'inbound', phone_number_id: callerId }), owner)).toEqual({
      phone_number_id: ['A caller ID number cannot receive calls, so it cannot be assigned to an inbound assistant.'],
    });
    expect(await errorsFor(legacyBody({ phone_number_id: foreign }), owner)).toEqual({ phone_number_id: ['The selected phone number id is invalid.'] });
    // Outbound assistants may call from a caller ID, and share a number with others.
    expect((await create(owner, currentBody({ phone_number_id: callerId }))).status).toBe(201);
    expect((await create(owner, currentBody({ phone_number_id: normal }))).status).toBe(201);
  });

  it('validates built-in tools by type, lists them nested, and encrypts their secrets', async () => {
    const owner = await user();
    const outbound = await insertNumber(owner);
    const apiKey = `cal_live_${randomUUID()}`;
    const created = await create(owner, currentBody({
      tools: [
        { type: 'call_transfer', phone_number: '+14155550123', description: 'To a person' },
        { type: 'collect_keypad' },
        { type: 'warm_call_transfer', supervisor_phone: '+14155550124', outbound_phone_id: outbound, description: 'To the manager' },
        { type: 'calendar_integration', calcom_api_key: apiKey, calcom_event_slug: 'table' },
      ],
    }));
    expect(created.status).toBe(201);
    const tools = (await read(owner, created.body.data.id)).tools;
    expect(tools[0]).toEqual({ type: 'call_transfer', data: { phone_number: '+14155550123', description: 'To a person', custom: false, warm_transfer: false } });
    expect(tools[1]).toEqual({ type: 'collect_keypad', data: { timeout: 5, stop_key: '#' } });
    expect(tools[2]).toMatchObject({ type: 'warm_call_transfer', data: { caller_id_mode: 'outbound_number', hold_music_volume: 80 } });
    expect(tools[3]).toMatchObject({ type: 'calendar_integration', data: { calcom_api_key: apiKey, calcom_endpoint: 'us' } });
    const raw = await platform.database.knex.raw<{ rows: { tools: string }[] }>('select tools::text as tools from assistants where id = ?', [created.body.data.id]);
    expect(raw.rows[0]?.tools).not.toContain(apiKey);

    expect(await errorsFor(currentBody({
      tools: [
        { type: 'call_transfer', description: 'x' },
        { type: 'teleport' },
        { type: 'collect_keypad', timeout: 31, stop_key: '0' },
        { type: 'warm_call_transfer', supervisor_phone: '12345', outbound_phone_id: outbound, description: 'x' },
      ],
    }), owner)).toEqual({
      'tools.0.phone_number': ['The tools.0.phone number field is required.'],
      'tools.1.type': ['The selected tools.1.type is invalid.'],
      'tools.2.timeout': ['The tools.2.timeout field must be between 1 and 30.'],
      'tools.2.stop_key': ['The selected tools.2.stop key is invalid.'],
      'tools.3.supervisor_phone': ['The tools.3.supervisor phone field must be a phone number in E.164 format.'],
    });
    // References are checked against the caller's records once the shapes are right.
    const foreignNumber = await insertNumber(await user());
    expect(await errorsFor(currentBody({
      tools: [
        { type: 'warm_call_transfer', supervisor_phone: '+14155550124', outbound_phone_id: foreignNumber, description: 'x' },
        { type: 'assistant_transfer', assistant_id: created.body.data.id },
        { type: 'calendar_integration', calcom_api_key: 'k', calcom_event_slug: 's', calcom_endpoint: 'custom' },
      ],
    }), await user())).toEqual({
      'tools.0.outbound_phone_id': ['The selected tools.0.outbound phone id is invalid.'],
      'tools.1.assistant_id': ['The selected tools.1.assistant id is invalid.'],
      'tools.2.calcom_custom_endpoint': ['The tools.2.calcom custom endpoint field is required when calcom endpoint is custom.'],
    });
  });

  it('answers 500 "Assistant creation failed" when storing fails unexpectedly', async () => {
    const owner = await user();
    const suffix = randomUUID().replace(/-/g, '');
    const knex = platform.database.knex;
    const name = `explode-${suffix}`;
    await knex.raw(`create function fail_${suffix}() returns trigger language plpgsql as $$ begin
      if new.name = '${name}' then raise exception 'storage failure'; end if; return new; end $$`);
    await knex.raw(`create trigger fail_${suffix} before insert on assistants for each row execute function fail_${suffix}()`);
    try {
      const response = await create(owner, currentBody({ name }));
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ message: 'Assistant creation failed', request_id: response.headers.get('x-request-id') });
    } finally {
      await knex.raw(`drop trigger fail_${suffix} on assistants`);
      await knex.raw(`drop function fail_${suffix}()`);
    }
  });
});
