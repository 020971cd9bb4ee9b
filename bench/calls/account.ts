/**
 * The account the phone-call bench and drill dial from: a user with credit on a plan of its own (its
 * `max_calls_in_parallel` the limit under test, set as the tests set plans), an API key, a sandbox number bought
 * through the API, and an outbound assistant on that number speaking with the embedded stack's Piper voice.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { usdToMicros } from '../../src/lib/money.ts';
import { createApiKey } from '../../src/resources/api-keys/service.ts';
import { createUser } from '../../src/resources/users/service.ts';
import { createTestAssistant } from '../../test/support/assistants.ts';
import { apiRequest, type ApiRequest } from '../../test/support/http.ts';

export interface CallingAccount {
  userId: number;
  token: string;
  assistantId: number;
  /** The API of the platform, as the account's client calls it. */
  request: ApiRequest;
}

export async function setUpCallingAccount(options: {
  knex: Knex;
  /** `http://host:port` of the api role. */
  baseUrl: string;
  /** The plan's concurrent calls; null for none. */
  maxCallsInParallel: number | null;
  initialMessage: string;
  /** Which voice the assistant speaks with, by its catalog name; a Piper voice by default. */
  voice?: (name: string) => boolean;
}): Promise<CallingAccount> {
  const { knex } = options;
  const request = apiRequest(options.baseUrl);
  const user = await createUser(knex, { name: 'Dialer', email: `dialer-${randomUUID()}@example.test`, creditMicros: usdToMicros(100_000), creditKind: 'adjustment' });
  const planId = `bench-${user.id}`;
  await knex('plans').insert({ id: planId, name: 'Bench', maxCallsInParallel: options.maxCallsInParallel });
  await knex('users').where({ id: user.id }).update({ planId });
  const { token } = await createApiKey(knex, user.id, 'dialer');

  const card = await request('POST', '/user/payment-methods', { token, body: { payment_method: 'pm_card_visa' } });
  if (card.status >= 300) throw new Error(`adding a card: HTTP ${card.status} ${card.text}`);
  const offers = await request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token });
  const bought = await request<{ data: { id: number } }>('POST', '/user/phone-numbers/purchase', { token, body: { phone_number: offers.body.data[0]?.phone_number } });
  if (bought.status !== 201) throw new Error(`buying a number: HTTP ${bought.status} ${bought.text}`);

  const english = ((await request('GET', '/user/assistants/languages', { token })).body as { id: number; iso_2: string }[]).find((language) => language.iso_2 === 'en')?.id;
  const voices = (await request('GET', `/user/assistants/voices?mode=pipeline&language_id=${english}`, { token })).body as { id: number; name: string }[];
  const voice = voices.find((entry) => (options.voice ?? ((name) => /piper/i.test(name)))(entry.name)) ?? voices[0];
  const assistant = await createTestAssistant({ request }, { token }, {
    voice_id: voice?.id,
    initial_message: options.initialMessage,
    phone_number_id: bought.body.data.id,
    max_call_duration: 120,
  });
  return { userId: user.id, token, assistantId: assistant.id, request };
}
