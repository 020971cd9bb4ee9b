import type { ApiRequest } from './http.ts';

/** Creates an assistant through the API (current spelling), English with the first chat model; returns its ids. */
export async function createTestAssistant(
  platform: { request: ApiRequest },
  owner: { token: string },
  settings: Record<string, unknown> = {},
): Promise<{ id: number; uuid: string }> {
  const get = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as { id: number; iso_2?: string; name?: string }[];
  const english = (await get('/user/assistants/languages')).find((language) => language.iso_2 === 'en')?.id;
  const voice = (await get(`/user/assistants/voices?mode=pipeline&language_id=${english}`))[0]?.id;
  const model = (await get('/user/assistants/models?type=llm')).find((entry) => entry.name === 'GPT-4o-mini')?.id;
  const created = await platform.request('POST', '/user/assistant', {
    token: owner.token,
    body: {
      name: 'Test Assistant',
      type: 'outbound',
      mode: 'pipeline',
      voice_id: voice,
      language_id: english,
      llm_model_id: model,
      timezone: 'Europe/Bucharest',
      initial_message: 'Hello!',
      system_prompt: 'You are a helpful assistant.',
      ...settings,
    },
  });
  if (created.status !== 201) throw new Error(`creating the assistant failed: ${created.status} ${created.text}`);
  const id = created.body.data.id as number;
  const read = await platform.request('GET', `/user/assistant/${id}`, { token: owner.token });
  return { id, uuid: (read.body.data?.uuid ?? read.body.uuid) as string };
}
