import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { everySpeechProvider } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

let platform: TestPlatform;
const catalog = { english: 0, german: 0, pipelineVoice: 0, germanVoice: 0, realtimeVoice: 0, llm: 0 };

beforeAll(async () => {
  // Hosted speech: every language can be chosen (assistant-languages.test.ts covers the offline stack's).
  platform = await startTestPlatform({ env: everySpeechProvider });
  const knex = platform.database.knex;
  catalog.english = (await knex('languages').where({ iso2: 'en' }).first()).id;
  catalog.german = (await knex('languages').where({ iso2: 'de' }).first()).id;
  catalog.pipelineVoice = (await knex('voices').where({ mode: 'pipeline', languageId: catalog.english }).orderBy('id').first()).id;
  catalog.realtimeVoice = (await knex('voices').where({ mode: 'multimodal' }).orderBy('id').first()).id;
  catalog.germanVoice = (await knex('voices').where({ name: 'German Female (eSpeak)' }).first()).id;
  catalog.llm = (await knex('language_models').where({ type: 'llm' }).orderBy('id').first()).id;
});
afterAll(() => platform.close());

const user = (): Promise<TestUser> => createTestUser(platform.database.knex);

async function createAssistant(owner: TestUser, overrides: Record<string, unknown> = {}): Promise<number> {
  const response = await platform.request('POST', '/user/assistant', {
    token: owner.token,
    body: {
      name: 'Sales', voice_id: catalog.pipelineVoice, language_id: catalog.english, type: 'outbound', mode: 'pipeline',
      llm_model_id: catalog.llm, timezone: 'UTC', initial_message: 'Hi!', system_prompt: 'Sell.', ...overrides,
    },
  });
  expect(response.status, JSON.stringify(response.body)).toBe(201);
  return response.body.data.id as number;
}

async function insertNumber(owner: TestUser, type: 'normal' | 'sip' | 'caller_id' = 'normal'): Promise<number> {
  const phoneNumber = `+4930${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
  const [row] = await platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber, countryCode: 'DE', type }).returning<{ id: number }[]>('id');
  return row?.id ?? 0;
}

async function createTool(owner: TestUser, name: string): Promise<number> {
  const response = await platform.request('POST', '/user/tools', {
    token: owner.token, body: { name, description: 'A tool', endpoint: 'https://example.com', method: 'GET' },
  });
  return response.body.data.id as number;
}

const read = async (owner: TestUser, id: number) => (await platform.request<Record<string, any>>('GET', `/user/assistant/${id}`, { token: owner.token })).body;
const update = (owner: TestUser, id: number, body: Record<string, unknown>) => platform.request('PUT', `/user/assistant/${id}`, { token: owner.token, body });

describe('PUT /api/user/assistant/{id}', () => {
  it('changes only the fields sent and answers with the summary', async () => {
    const owner = await user();
    const id = await createAssistant(owner, { variables: { a: '1', b: '2' }, speech_speed: 0.9 });
    const before = await read(owner, id);
    const response = await update(owner, id, { name: 'Renamed', llm_temperature: 0.5 });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Assistant updated successfully', data: { id, name: 'Renamed', status: 'active', type: 'outbound', mode: 'pipeline' } });
    expect(await read(owner, id)).toEqual({ ...before, name: 'Renamed', llm_temperature: 0.5, updated_at: expect.any(String) });
  });

  it('replaces arrays and objects whole and clears nullable fields with null', async () => {
    const owner = await user();
    const id = await createAssistant(owner, {
      variables: { a: '1', b: '2' }, is_webhook_active: true, webhook_url: 'https://example.com/hook',
      post_call_schema: [{ name: 'outcome', type: 'string', description: 'What happened' }], max_initial_silence_duration: 10,
    });
    expect((await update(owner, id, { variables: { c: 3 }, post_call_schema: [], is_webhook_active: false, webhook_url: null, max_initial_silence_duration: null })).status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ variables: { c: 3 }, post_call_schema: [], is_webhook_active: false, webhook_url: null, max_initial_silence_duration: null });
  });

  it('accepts the legacy spelling too', async () => {
    const owner = await user();
    const id = await createAssistant(owner);
    expect((await update(owner, id, { assistant_name: 'Old name', calls_direction: 'receive', record_call: true, language: 'German', voice_id: catalog.germanVoice })).status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ name: 'Old name', type: 'inbound', record: true, language_id: catalog.german, language: 'German' });
  });

  it('resets the mode-specific settings when the mode changes', async () => {
    const owner = await user();
    const id = await createAssistant(owner, { fillers: true });
    const response = await update(owner, id, { mode: 'multimodal', voice_id: catalog.realtimeVoice });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(await read(owner, id)).toMatchObject({
      mode: 'multimodal', llm_model_id: null, multimodal_model_id: expect.any(Number), fillers: false,
      synthesizer_provider_id: null, transcriber_provider_id: null, knowledgebase_mode: 'function_call',
    });
    // The old voice does not suit the new mode.
    const back = await update(owner, id, { mode: 'pipeline' });
    expect(back.status).toBe(422);
    expect(back.body.errors).toEqual({ voice_id: ['The selected voice is not compatible with the chosen engine type.'] });
  });

  it('applies the create rules to the fields sent', async () => {
    const owner = await user();
    const id = await createAssistant(owner);
    const response = await update(owner, id, { speech_speed: 1.3, timezone: 'Nowhere/City', is_webhook_active: true });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual({ speech_speed: ['The speech speed field must be between 0.7 and 1.2.'] });
    const crossField = await update(owner, id, { timezone: 'Nowhere/City', is_webhook_active: true });
    expect(crossField.body.errors).toEqual({
      timezone: ['The timezone field must be a valid timezone.'],
      webhook_url: ['The webhook url field is required when is webhook active is true.'],
    });
  });

  it('keeps an inbound number to one assistant when the direction changes', async () => {
    const owner = await user();
    const number = await insertNumber(owner);
    await createAssistant(owner, { type: 'inbound', phone_number_id: number });
    const outbound = await createAssistant(owner, { phone_number_id: number });
    const response = await update(owner, outbound, { type: 'inbound' });
    expect(response.body.errors).toEqual({ phone_number_id: ['The phone number is already assigned to another inbound assistant.'] });
    const self = await createAssistant(owner, { type: 'inbound', phone_number_id: await insertNumber(owner) });
    expect((await update(owner, self, { name: 'Still mine' })).status).toBe(200);
  });

  it('replaces the attached tools', async () => {
    const owner = await user();
    const [a, b] = [await createTool(owner, 'tool_a'), await createTool(owner, 'tool_b')];
    const id = await createAssistant(owner, { tool_ids: [a] });
    await update(owner, id, { tool_ids: [b] });
    expect((await read(owner, id)).tool_ids).toEqual([b]);
    await update(owner, id, { tool_ids: [] });
    expect((await read(owner, id)).tool_ids).toEqual([]);
  });

  it('answers 404 for another user\'s assistant, and refuses their records as references', async () => {
    const owner = await user();
    const other = await user();
    const foreign = await createAssistant(other);
    const response = await update(owner, foreign, { name: 'Mine now' });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ message: 'Assistant not found' });
    expect((await read(other, foreign)).name).toBe('Sales');
    const id = await createAssistant(owner);
    const kb = (await platform.database.knex('knowledgebases').insert({ userId: other.id, name: 'Theirs' }).returning<{ id: number }[]>('id'))[0]?.id;
    const references = await update(owner, id, { phone_number_id: await insertNumber(other), knowledgebase_id: kb });
    expect(references.body.errors).toEqual({
      phone_number_id: ['The selected phone number id is invalid.'],
      knowledgebase_id: ['The selected knowledgebase id is invalid.'],
    });
  });
});

describe('GET and DELETE /api/user/assistant/{id}', () => {
  it('reads one assistant unwrapped, the same item as the list', async () => {
    const owner = await user();
    const id = await createAssistant(owner);
    const one = await platform.request('GET', `/user/assistant/${id}`, { token: owner.token });
    expect(one.status).toBe(200);
    const list = await platform.request('GET', '/user/assistants/get', { token: owner.token });
    expect(list.body.data).toEqual([one.body]);
  });

  it('deletes an assistant of the caller, and answers 404 for anyone else\'s or a missing one', async () => {
    const owner = await user();
    const id = await createAssistant(owner);
    const stranger = await user();
    expect((await platform.request('DELETE', `/user/assistant/${id}`, { token: stranger.token })).body).toEqual({ message: 'Assistant not found' });
    expect((await platform.request('GET', `/user/assistant/${id}`, { token: stranger.token })).status).toBe(404);
    const deleted = await platform.request('DELETE', `/user/assistant/${id}`, { token: owner.token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ message: 'Assistant deleted successfully' });
    expect((await platform.request('GET', `/user/assistant/${id}`, { token: owner.token })).status).toBe(404);
  });
});

describe('GET /api/user/assistants/get', () => {
  it('pages the caller\'s assistants ten at a time, like Laravel\'s paginator', async () => {
    const owner = await user();
    await createAssistant(await user());
    const ids: number[] = [];
    for (let index = 0; index < 11; index++) ids.push(await createAssistant(owner, { name: `A${index}` }));
    const first = await platform.request('GET', '/user/assistants/get', { token: owner.token });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ current_page: 1, per_page: 10, total: 11, last_page: 2, from: 1, to: 10, prev_page_url: null });
    expect((first.body.data as any[]).map((item: { id: number }) => item.id)).toEqual(ids.slice(0, 10));
    expect(first.body.next_page_url).toMatch(/\/api\/user\/assistants\/get\?page=2$/);
    expect(first.body.data[0]).toMatchObject({ uuid: expect.any(String), user_id: owner.id, tools: [], tool_ids: [] });
    const second = await platform.request('GET', '/user/assistants/get?per_page=5&page=3', { token: owner.token });
    expect(second.body).toMatchObject({ current_page: 3, per_page: 5, from: 11, to: 11, next_page_url: null });
    expect(second.body.first_page_url).toMatch(/\?per_page=5&page=1$/);
  });

  it('keeps per_page between 1 and 100', async () => {
    const owner = await user();
    expect((await platform.request('GET', '/user/assistants/get?per_page=100', { token: owner.token })).status).toBe(200);
    expect((await platform.request('GET', '/user/assistants/get?per_page=1', { token: owner.token })).status).toBe(200);
    for (const perPage of [0, 101]) {
      const response = await platform.request('GET', `/user/assistants/get?per_page=${perPage}`, { token: owner.token });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual({ per_page: ['The per page field must be between 1 and 100.'] });
    }
  });
});

describe('GET /api/user/assistants', () => {
  it('answers all of the caller\'s assistants as a bare array of the list\'s items, by id, beyond one page', async () => {
    const owner = await user();
    const ids = [await createAssistant(owner, { type: 'inbound' })];
    await createAssistant(await user());
    for (let index = 0; index < 10; index++) ids.push(await createAssistant(owner, { name: `A${index}` }));
    const response = await platform.request('GET', '/user/assistants', { token: owner.token });
    expect(response.status).toBe(200);
    expect((response.body as { id: number }[]).map((item) => item.id)).toEqual(ids);
    expect(response.body).toEqual((await platform.request('GET', '/user/assistants/get?per_page=100', { token: owner.token })).body.data);
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(response.body[0]).toMatchObject({ id: ids[0], user_id: owner.id, name: 'Sales', type: 'inbound', mode: 'pipeline', created_at: iso, updated_at: iso });
    expect((await platform.request('GET', '/user/assistants', { token: (await user()).token })).body).toEqual([]);
    expect((await platform.request('GET', '/user/assistants')).status).toBe(401);
  });
});

describe('ids in bodies written as strings of digits', () => {
  it('are taken as the integers by create, update, built-in tools and the webhook routes', async () => {
    const owner = await user();
    const [a, b] = [await createTool(owner, 'tool_a'), await createTool(owner, 'tool_b')];
    const kb = (await platform.database.knex('knowledgebases').insert({ userId: owner.id, name: 'Mine' }).returning<{ id: number }[]>('id'))[0]?.id;
    const number = await insertNumber(owner);
    const target = await createAssistant(owner);
    const id = await createAssistant(owner, {
      voice_id: String(catalog.pipelineVoice), language_id: String(catalog.english), llm_model_id: String(catalog.llm),
      knowledgebase_id: String(kb), tool_ids: [String(a)], phone_number_id: String(number),
    });
    expect(await read(owner, id)).toMatchObject({
      voice_id: catalog.pipelineVoice, language_id: catalog.english, llm_model_id: catalog.llm, knowledgebase_id: kb, tool_ids: [a], phone_number_id: number,
    });
    const updated = await update(owner, id, { tool_ids: [String(b), a], tools: [{ type: 'assistant_transfer', assistant_id: String(target) }] });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(await read(owner, id)).toMatchObject({ tool_ids: [a, b], tools: [{ type: 'assistant_transfer', data: { assistant_id: target } }] });
    // The built-in tool's rule "not the assistant itself" compares numbers, so the string form cannot slip past it.
    const self = await update(owner, id, { tools: [{ type: 'assistant_transfer', assistant_id: String(id) }] });
    expect(self.body.errors).toEqual({ 'tools.0.assistant_id': ['The selected tools.0.assistant id is invalid.'] });
    const enabled = await platform.request('POST', '/user/assistants/enable-webhook', { token: owner.token, body: { assistant_id: String(id), webhook_url: 'https://example.com/calls' } });
    expect(enabled.status).toBe(200);
    expect(await read(owner, id)).toMatchObject({ is_webhook_active: true });
  });

  it('refuses any other string with Laravel\'s "must be an integer"', async () => {
    const owner = await user();
    const id = await createAssistant(owner);
    const response = await update(owner, id, { knowledgebase_id: '12a', tool_ids: ['1', 'x'] });
    expect(response.status).toBe(422);
    expect(response.body).toEqual({
      message: 'The knowledgebase id field must be an integer. (and 1 more error)',
      errors: { knowledgebase_id: ['The knowledgebase id field must be an integer.'], 'tool_ids.1': ['The tool ids.1 field must be an integer.'] },
    });
    const webhook = await platform.request('POST', '/user/assistants/disable-webhook', { token: owner.token, body: { assistant_id: '12a' } });
    expect(webhook.body).toEqual({ message: 'The assistant id field must be an integer.', errors: { assistant_id: ['The assistant id field must be an integer.'] } });
  });
});

describe('GET /api/user/assistants/outbound', () => {
  it('lists the caller\'s outbound assistants as a bare array', async () => {
    const owner = await user();
    const outbound = await createAssistant(owner, { variables: { x: 1 } });
    await createAssistant(owner, { type: 'inbound' });
    await createAssistant(await user());
    const response = await platform.request('GET', '/user/assistants/outbound', { token: owner.token });
    expect(response.body).toEqual([{
      id: outbound, user_id: owner.id, name: 'Sales', type: 'outbound', mode: 'pipeline', status: 'active', voice_id: catalog.pipelineVoice,
      language_id: catalog.english, timezone: 'UTC', initial_message: 'Hi!', system_prompt: 'Sell.', variables: { x: 1 }, webhook_url: null,
      is_webhook_active: false, created_at: expect.any(String), updated_at: expect.any(String),
    }]);
  });
});

describe('POST /api/user/assistants/enable-webhook and disable-webhook', () => {
  it('turns the webhook on with its URL, and off clearing the URL', async () => {
    const owner = await user();
    const id = await createAssistant(owner);
    const enabled = await platform.request('POST', '/user/assistants/enable-webhook', { token: owner.token, body: { assistant_id: id, webhook_url: 'https://example.com/calls' } });
    expect(enabled.status).toBe(200);
    expect(enabled.body).toEqual({ message: 'Webhook enabled successfully', data: [] });
    expect(await read(owner, id)).toMatchObject({ is_webhook_active: true, webhook_url: 'https://example.com/calls' });
    const disabled = await platform.request('POST', '/user/assistants/disable-webhook', { token: owner.token, body: { assistant_id: id } });
    expect(disabled.body).toEqual({ message: 'Webhook disabled successfully', data: [] });
    expect(await read(owner, id)).toMatchObject({ is_webhook_active: false, webhook_url: null });
  });

  it('validates its body and answers 404 for another user\'s assistant', async () => {
    const owner = await user();
    const missing = await platform.request('POST', '/user/assistants/disable-webhook', { token: owner.token, body: {} });
    expect(missing.status).toBe(422);
    expect(missing.body).toEqual({ message: 'The assistant id field is required.', errors: { assistant_id: ['The assistant id field is required.'] } });
    const badUrl = await platform.request('POST', '/user/assistants/enable-webhook', { token: owner.token, body: { assistant_id: 1, webhook_url: 'nope' } });
    expect(badUrl.body.errors).toEqual({ webhook_url: ['The webhook url field must be a valid URL.'] });
    const other = await user();
    const foreign = await createAssistant(other);
    for (const path of ['enable-webhook', 'disable-webhook']) {
      const response = await platform.request('POST', `/user/assistants/${path}`, { token: owner.token, body: { assistant_id: foreign, webhook_url: 'https://example.com' } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: 'Assistant not found' });
    }
    expect((await read(other, foreign)).is_webhook_active).toBe(false);
  });
});

describe('GET /api/user/assistants/phone-numbers', () => {
  it('lists only the caller\'s numbers in the assignment shape', async () => {
    const owner = await user();
    const normal = await insertNumber(owner);
    const sip = await insertNumber(owner, 'sip');
    const callerId = await insertNumber(owner, 'caller_id');
    await insertNumber(await user());
    const response = await platform.request('GET', '/user/assistants/phone-numbers', { token: owner.token });
    expect(response.status).toBe(200);
    expect(response.body).toEqual([
      { id: normal, phone_number: expect.stringMatching(/^\+4930\d{8}$/), country_code: 'DE', type_label: 'Normal', is_available: true },
      { id: sip, phone_number: expect.any(String), country_code: 'DE', type_label: 'SIP', is_available: true },
      { id: callerId, phone_number: expect.any(String), country_code: 'DE', type_label: 'Caller ID', is_available: false },
    ]);
  });

  it('for inbound, leaves out caller-ID numbers and numbers already on an inbound assistant', async () => {
    const owner = await user();
    const taken = await insertNumber(owner);
    const onOutbound = await insertNumber(owner);
    const free = await insertNumber(owner);
    await insertNumber(owner, 'caller_id');
    await createAssistant(owner, { type: 'inbound', phone_number_id: taken });
    await createAssistant(owner, { phone_number_id: onOutbound });
    const inbound = await platform.request('GET', '/user/assistants/phone-numbers?type=inbound', { token: owner.token });
    expect((inbound.body as any[]).map((number: { id: number }) => number.id)).toEqual([onOutbound, free]);
    expect((inbound.body as any[]).every((number: { is_available: boolean }) => number.is_available)).toBe(true);
    const outbound = await platform.request('GET', '/user/assistants/phone-numbers?type=outbound', { token: owner.token });
    expect(outbound.body).toHaveLength(4);
    expect((outbound.body as any[]).find((number: { id: number }) => number.id === taken).is_available).toBe(false);
    const bad = await platform.request('GET', '/user/assistants/phone-numbers?type=sideways', { token: owner.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ type: ['The selected type is invalid.'] });
  });
});
