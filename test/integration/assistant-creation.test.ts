import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assistantRequests, startAssistantPlatform, type AssistantCatalog } from '../support/assistant-requests.ts';
import type { TestPlatform } from '../support/platform.ts';
import type { TestUser } from '../support/users.ts';

// Creating assistants: in either spelling, with what they link to (tools, knowledge base, numbers, built-in
// tools), and a failure to store; the rules a body must keep are in assistant-validation.test.ts.

let platform: TestPlatform;
let catalog: AssistantCatalog;
beforeAll(async () => {
  ({ platform, catalog } = await startAssistantPlatform());
});
afterAll(() => platform.close());

const { user, currentBody, legacyBody, create, read, errorsFor, insertNumber } = assistantRequests(() => ({ platform, catalog }));

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
    // `custom_sip` makes the supervisor a SIP URI, and only then.
    expect(await errorsFor(currentBody({
      tools: [
        { type: 'warm_call_transfer', supervisor_phone: '+14155550124', custom_sip: true, outbound_phone_id: outbound, description: 'x' },
        { type: 'warm_call_transfer', supervisor_phone: 'sip:desk@pbx.example.com', outbound_phone_id: outbound, description: 'x' },
      ],
    }), owner)).toEqual({
      'tools.0.supervisor_phone': ['The tools.0.supervisor phone field must be a SIP URI when custom sip is true.'],
      'tools.1.supervisor_phone': ['The tools.1.supervisor phone field must be a phone number in E.164 format.'],
    });
    const sip = await create(owner, currentBody({
      tools: [{ type: 'warm_call_transfer', supervisor_phone: 'sip:desk@pbx.example.com', custom_sip: true, outbound_phone_id: outbound, description: 'x' }],
    }));
    expect(sip.status, sip.text).toBe(201);
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
