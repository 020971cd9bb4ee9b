import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { everySpeechProvider, speechInstalled } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

let platform: TestPlatform;
let germanId = 0;

beforeAll(async () => {
  platform = await startTestPlatform({ env: everySpeechProvider });
  const owner = await createTestUser(platform.database.knex);
  const languages = (await platform.request('GET', '/user/assistants/languages', { token: owner.token })).body as { id: number; iso_2: string }[];
  germanId = languages.find((language) => language.iso_2 === 'de')?.id ?? 0;
});
afterAll(() => platform.close());

const user = (): Promise<TestUser> => createTestUser(platform.database.knex);

describe('assistant catalogs', () => {
  it('lists the seeded languages with their ISO codes', async () => {
    const response = await platform.request('GET', '/user/assistants/languages', { token: (await user()).token });
    expect(response.status).toBe(200);
    expect((response.body as any[]).map((language: { name: string }) => language.name)).toEqual(
      expect.arrayContaining(['English', 'German', 'French', 'Spanish', 'Italian', 'Portuguese', 'Dutch', 'Romanian']),
    );
    // Hosted speech here: every language is available, none is served offline.
    expect(response.body[0]).toEqual({
      id: expect.any(Number), name: expect.any(String), iso_2: expect.stringMatching(/^[a-z]{2}$/), offline: false, available: true, unavailable_reason: null,
    });
  });

  it('lists voices by mode and language, multilingual voices included', async () => {
    const owner = await user();
    const voices = async (query: string) => (await platform.request('GET', `/user/assistants/voices${query}`, { token: owner.token })).body as Record<string, unknown>[];
    const pipeline = await voices('?mode=pipeline');
    expect(pipeline.length).toBeGreaterThan(0);
    expect(pipeline.every((voice) => voice.mode === 'pipeline' && voice.synthesizer_provider_id !== null)).toBe(true);
    expect(pipeline.map((voice) => voice.name)).toEqual(expect.arrayContaining(['German Female (eSpeak)', ...(speechInstalled ? ['Joe (Piper)'] : [])]));
    const multimodal = await voices('?mode=multimodal');
    expect(multimodal.every((voice) => voice.mode === 'multimodal' && voice.synthesizer_provider_id === null)).toBe(true);
    const german = await voices(`?mode=pipeline&language_id=${germanId}`);
    expect(german.every((voice) => voice.language_id === germanId || voice.language_id === null)).toBe(true);
    expect(german.map((voice) => voice.name)).toEqual(expect.arrayContaining(['German Male (eSpeak)', 'Rachel']));
    expect(german.map((voice) => voice.name)).not.toContain('English Male (eSpeak)');
    expect(german.map((voice) => voice.name)).not.toContain('Joe (Piper)');
    expect(german[0]).toEqual({
      id: expect.any(Number), name: expect.any(String), mode: 'pipeline', language_id: germanId, gender: expect.any(String),
      preview_url: null, accent: null, age: null, synthesizer_provider_id: expect.any(Number),
    });
    const bad = await platform.request('GET', '/user/assistants/voices?mode=dualplex', { token: owner.token });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual({ mode: ['The selected mode is invalid.'] });
  });

  it('lists chat models by default and speech-to-speech models with their code', async () => {
    const owner = await user();
    const llm = await platform.request('GET', '/user/assistants/models', { token: owner.token });
    expect(llm.body).toEqual(expect.arrayContaining([{ id: expect.any(Number), name: 'GPT-4o-mini' }]));
    const realtime = await platform.request('GET', '/user/assistants/models?type=multimodal', { token: owner.token });
    expect(realtime.body).toEqual(expect.arrayContaining([{ id: expect.any(Number), name: 'GPT Realtime', code: 'gpt-realtime' }]));
  });

  it('lists speech providers, narrowed to a language when asked', async () => {
    const owner = await user();
    const all = await platform.request('GET', '/user/assistants/synthesizer-providers', { token: owner.token });
    expect(all.body).toEqual(expect.arrayContaining([
      { id: expect.any(Number), name: 'eSpeak NG', code: 'espeak' },
      ...(speechInstalled ? [{ id: expect.any(Number), name: 'Piper', code: 'piper' }] : []),
    ]));
    // Only what this deployment serves: no OpenAI voices without OpenAI speech configured.
    expect((all.body as { code: string }[]).map((provider) => provider.code)).not.toContain('openai');
    const german = await platform.request('GET', `/user/assistants/synthesizer-providers?language_id=${germanId}`, { token: owner.token });
    expect((german.body as any[]).map((provider: { code: string }) => provider.code)).toEqual(expect.arrayContaining(['espeak', 'elevenlabs']));
    const transcribers = await platform.request('GET', `/user/assistants/transcriber-providers?language_id=${germanId}`, { token: owner.token });
    expect((transcribers.body as any[]).map((provider: { code: string }) => provider.code)).toEqual(['deepgram']);
    const unknown = await platform.request('GET', '/user/assistants/transcriber-providers?language_id=999999', { token: owner.token });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual({ language_id: ['The selected language id is invalid.'] });
  });
});
