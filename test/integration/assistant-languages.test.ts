import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multilingualSpeechInstalled } from '../../src/providers/speech-install.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechDir, speechInstalled } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/**
 * The embedded default (the offline recognizer): which languages it serves, and assistants refused at creation
 * in a language it cannot hear or with a voice of another language. German, Spanish and French are heard once
 * scripts/install-speech.sh installed Whisper base; English always.
 */
let platform: TestPlatform;
// Without the offline stack here, the catalog says what the media role's install brings (SPEECH_MULTILINGUAL).
const multilingual = !speechInstalled || multilingualSpeechInstalled(speechDir);
const ids = { english: 0, german: 0, italian: 0, englishVoice: 0, germanVoice: 0, realtimeVoice: 0, llm: 0, realtime: 0 };

interface LanguageEntry { id: number; name: string; iso_2: string; offline: boolean; available: boolean; unavailable_reason: string | null }

beforeAll(async () => {
  platform = await startTestPlatform();
  const knex = platform.database.knex;
  const language = async (iso2: string) => Number((await knex('languages').where({ iso2 }).first('id')).id);
  const voice = async (name: string) => Number((await knex('voices').where({ name }).first('id')).id);
  Object.assign(ids, {
    english: await language('en'), german: await language('de'), italian: await language('it'),
    englishVoice: await voice('English Male (eSpeak)'), germanVoice: await voice('German Female (eSpeak)'), realtimeVoice: await voice('Marin'),
    llm: Number((await knex('language_models').where({ type: 'llm' }).orderBy('id').first('id')).id),
    realtime: Number((await knex('language_models').where({ type: 'multimodal' }).orderBy('id').first('id')).id),
  });
});
afterAll(() => platform.close());

const user = (): Promise<TestUser> => createTestUser(platform.database.knex);

const create = (owner: TestUser, overrides: Record<string, unknown>) => platform.request('POST', '/user/assistant', {
  token: owner.token,
  body: {
    name: 'Empfang', voice_id: ids.englishVoice, language_id: ids.english, type: 'inbound', mode: 'pipeline', llm_model_id: ids.llm,
    timezone: 'Europe/Berlin', initial_message: 'Hallo!', system_prompt: 'Sei freundlich.', ...overrides,
  },
});

describe('languages on the offline stack', () => {
  it('lists which languages the deployment serves offline and why the others need a hosted provider', async () => {
    const response = await platform.request('GET', '/user/assistants/languages', { token: (await user()).token });
    expect(response.status).toBe(200);
    const byCode = new Map((response.body as LanguageEntry[]).map((entry) => [entry.iso_2, entry]));
    expect(byCode.get('en')).toMatchObject({ name: 'English', offline: true, available: true, unavailable_reason: null });
    for (const code of ['de', 'es', 'fr']) expect(byCode.get(code)).toMatchObject({ offline: multilingual, available: multilingual });
    const heard = multilingual ? 'English, German, French and Spanish' : 'English';
    expect(byCode.get('it')).toEqual({
      id: ids.italian, name: 'Italian', iso_2: 'it', offline: false, available: false,
      unavailable_reason: `The offline recognizer (Whisper) of this deployment hears ${heard}, not Italian: calls in Italian need a hosted speech-to-text provider (STT_PROVIDER).`,
    });
  });

  it('refuses a pipeline assistant in a language the deployment cannot hear, saying why; a speech-to-speech one speaks any', async () => {
    const owner = await user();
    const italian = await create(owner, { language_id: ids.italian, voice_id: (await platform.database.knex('voices').where({ name: 'Italian Male (eSpeak)' }).first('id')).id });
    expect(italian.status).toBe(422);
    expect(italian.body.errors.language_id).toEqual([expect.stringMatching(/^The offline recognizer \(Whisper\) of this deployment hears .*, not Italian: calls in Italian need a hosted speech-to-text provider/)]);
    const realtime = await create(owner, { language_id: ids.italian, mode: 'multimodal', voice_id: ids.realtimeVoice, llm_model_id: undefined, multimodal_model_id: ids.realtime });
    expect(realtime.status, JSON.stringify(realtime.body)).toBe(201);
  });

  it('refuses a voice that speaks another language than the assistant, naming both, on creation and on a change', async () => {
    const owner = await user();
    const mismatched = await create(owner, { language_id: ids.german, voice_id: ids.englishVoice });
    expect(mismatched.status).toBe(422);
    expect(mismatched.body.errors.voice_id).toEqual([
      'The selected voice English Male (eSpeak) speaks English, not German: choose a voice of German or a multilingual one.',
    ]);
    const english = await create(owner, {});
    expect(english.status).toBe(201);
    const id = english.body.data.id as number;
    const changed = await platform.request('PUT', `/user/assistant/${id}`, { token: owner.token, body: { language_id: ids.german } });
    expect(changed.status).toBe(422);
    expect(changed.body.errors.voice_id).toEqual([expect.stringContaining('speaks English, not German')]);
  });

  it.skipIf(!multilingual)('takes a German assistant with a German voice on the embedded default', async () => {
    const owner = await user();
    const german = await create(owner, { language_id: ids.german, voice_id: ids.germanVoice });
    expect(german.status, JSON.stringify(german.body)).toBe(201);
    const read = await platform.request('GET', `/user/assistant/${german.body.data.id as number}`, { token: owner.token });
    expect(read.body).toMatchObject({ language: 'German', language_id: ids.german, voice_id: ids.germanVoice });
  });
});
