import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { up } from '../../migrations/20261123000003_add_hosted_voices.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

describe('the OpenAI speech voices of the catalog', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it('lists OpenAI as a synthesizer with English pipeline voices, and adds nothing when the migration runs again', async () => {
    const owner = await createTestUser(platform.database.knex);
    const get = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as Record<string, unknown>[];
    const providers = await get('/user/assistants/synthesizer-providers');
    const openai = providers.find((provider) => provider.code === 'openai');
    expect(openai).toEqual({ id: expect.any(Number), name: 'OpenAI', code: 'openai' });
    const english = (await get('/user/assistants/languages')).find((language) => language.iso_2 === 'en')?.id;
    const voices = (await get(`/user/assistants/voices?mode=pipeline&language_id=${String(english)}`))
      .filter((voice) => voice.synthesizer_provider_id === openai?.id);
    expect(voices.map((voice) => voice.name)).toEqual(expect.arrayContaining(['Alloy (OpenAI)', 'Verse (OpenAI)']));
    expect(voices.every((voice) => voice.language_id === english)).toBe(true);

    const count = async () => Number((await platform.database.knex('voices').where({ synthesizerProviderId: openai?.id }).count({ n: '*' }))[0]?.n);
    const before = await count();
    await up(platform.database.knex);
    expect(await count()).toBe(before);
  });
});
