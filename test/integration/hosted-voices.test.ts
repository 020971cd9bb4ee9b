import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up } from '../../migrations/20261123000003_add_hosted_voices.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled } from '../support/speech.ts';
import { createTestUser } from '../support/users.ts';

describe('the OpenAI speech voices of the catalog', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    // OpenAI speech is configured (never called), so the catalog offers its voices.
    platform = await startTestPlatform({ env: { TTS_PROVIDER: 'openai', OPENAI_TTS_BASE_URL: 'http://127.0.0.1:9/v1' } });
  });
  afterAll(() => platform.close());

  it('lists OpenAI as a synthesizer with multilingual pipeline voices, and adds nothing when the migration runs again', async () => {
    const owner = await createTestUser(platform.database.knex);
    const get = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as Record<string, unknown>[];
    const providers = await get('/user/assistants/synthesizer-providers');
    const openai = providers.find((provider) => provider.code === 'openai');
    expect(openai).toEqual({ id: expect.any(Number), name: 'OpenAI', code: 'openai' });
    const english = (await get('/user/assistants/languages')).find((language) => language.iso_2 === 'en')?.id;
    const voices = (await get(`/user/assistants/voices?mode=pipeline&language_id=${String(english)}`))
      .filter((voice) => voice.synthesizer_provider_id === openai?.id);
    expect(voices.map((voice) => voice.name)).toEqual(expect.arrayContaining(['Alloy (OpenAI)', 'Verse (OpenAI)']));
    // They speak the language of the text: no language of their own, listed for English (and any other).
    expect(voices.every((voice) => voice.language_id === null)).toBe(true);

    const count = async () => Number((await platform.database.knex('voices').where({ synthesizerProviderId: openai?.id }).count({ n: '*' }))[0]?.n);
    const before = await count();
    await up(platform.database.knex);
    expect(await count()).toBe(before);
  });
});

describe('the speech catalogs of the embedded default', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it('offer only what this deployment serves: the offline voices and recognizer, no hosted or realtime ones', async () => {
    const owner = await createTestUser(platform.database.knex);
    const get = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as { code?: string; name?: string; mode?: string }[];
    const synthesizers = (await get('/user/assistants/synthesizer-providers')).map((provider) => provider.code);
    expect(synthesizers).toEqual(speechInstalled ? ['espeak', 'piper'] : ['espeak']);
    expect((await get('/user/assistants/transcriber-providers')).map((provider) => provider.code)).toEqual(['whisper']);
    const voices = await get('/user/assistants/voices');
    expect(voices.length).toBeGreaterThan(0);
    expect(voices.some((voice) => voice.mode === 'multimodal' || /OpenAI|Rachel/.test(voice.name ?? ''))).toBe(false);
  });
});
