import { expect } from 'vitest';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { everySpeechProvider } from './speech.ts';
import { createTestUser, type TestUser } from './users.ts';

/** The catalog entries the assistant creation tests build their bodies from: languages, voices and models. */
export interface AssistantCatalog {
  english: number;
  german: number;
  pipelineVoice: number;
  germanVoice: number;
  realtimeVoice: number;
  gpt4o: number;
  realtime: number;
  firstLlm: number;
}

/** A platform with every speech provider configured, and the catalog ids a fresh owner sees on it. The caller closes it. */
export async function startAssistantPlatform(): Promise<{ platform: TestPlatform; catalog: AssistantCatalog }> {
  const platform = await startTestPlatform({ env: everySpeechProvider });
  const catalog: AssistantCatalog = { english: 0, german: 0, pipelineVoice: 0, germanVoice: 0, realtimeVoice: 0, gpt4o: 0, realtime: 0, firstLlm: 0 };
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
  return { platform, catalog };
}

/**
 * What the assistant creation tests send and read on the platform and catalog `started` gives (once started):
 * bodies in the current and the legacy spelling, the creation request, the stored assistant, the 422 errors
 * of a body, and a phone number of an owner's to assign.
 */
export function assistantRequests(started: () => { platform: TestPlatform; catalog: AssistantCatalog }) {
  const user = (): Promise<TestUser> => createTestUser(started().platform.database.knex);

  const currentBody = (overrides: Record<string, unknown> = {}) => ({
    name: 'Front desk',
    voice_id: started().catalog.pipelineVoice,
    language_id: started().catalog.english,
    type: 'outbound',
    mode: 'pipeline',
    llm_model_id: started().catalog.gpt4o,
    timezone: 'Europe/Berlin',
    initial_message: 'Hello {{customer_name}}, this is the front desk.',
    system_prompt: 'You book tables. Be brief.',
    ...overrides,
  });

  const legacyBody = (overrides: Record<string, unknown> = {}) => ({
    assistant_name: 'Front desk',
    voice_id: started().catalog.pipelineVoice,
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
    return started().platform.request('POST', '/user/assistant', { token: owner.token, body });
  }

  async function read(owner: TestUser, id: number) {
    return (await started().platform.request<Record<string, any>>('GET', `/user/assistant/${id}`, { token: owner.token })).body;
  }

  /** The 422 errors of creating an assistant from this body. */
  async function errorsFor(body: Record<string, unknown>, owner?: TestUser) {
    const response = await create(owner ?? await user(), body);
    expect(response.status, JSON.stringify(response.body)).toBe(422);
    return response.body.errors as Record<string, string[]>;
  }

  async function insertNumber(owner: TestUser, type: 'normal' | 'sip' | 'caller_id' = 'normal'): Promise<number> {
    const phoneNumber = `+4930${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const [row] = await started().platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber, countryCode: 'DE', type }).returning<{ id: number }[]>('id');
    return row?.id ?? 0;
  }

  return { user, currentBody, legacyBody, create, read, errorsFor, insertNumber };
}
