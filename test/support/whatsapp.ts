import { expect } from 'vitest';
import { createTestAssistant } from './assistants.ts';
import type { TestPlatform } from './platform.ts';
import { createTestUser, type TestUser } from './users.ts';

export interface TestSender {
  user: TestUser;
  assistant: { id: number; uuid: string };
  /** The sender as `POST /user/whatsapp/senders` answered it, its signing secret included. */
  sender: { id: number; phone_number: string; signing_secret: string };
  phoneNumberId: number;
}

/**
 * A new user with a number the carrier provisioned, an assistant (with `assistantSettings` besides its system
 * prompt) and a WhatsApp sender of both, made through the API.
 */
export async function createTestSender(platform: TestPlatform, options: {
  balanceUsd?: number;
  webhookUrl?: string;
  systemPrompt?: string;
  assistantSettings?: Record<string, unknown>;
} = {}): Promise<TestSender> {
  const knex = platform.database.knex;
  const user = await createTestUser(knex, { balanceUsd: options.balanceUsd ?? 1 });
  const [offer] = await platform.providers.telephony.searchNumbers({ countryCode: 'US', limit: 1 });
  await platform.providers.telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: `wa-${crypto.randomUUID()}` });
  const [row] = await knex('phone_numbers').insert({ userId: user.id, phoneNumber: offer!.phoneNumber, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active' }).returning('id');
  const phoneNumberId = Number((row as { id: number }).id);
  const assistant = await createTestAssistant(platform, user, { system_prompt: options.systemPrompt ?? 'You answer WhatsApp messages for Acme.', ...options.assistantSettings });
  const created = await platform.request('POST', '/user/whatsapp/senders', {
    token: user.token,
    body: { phone_number_id: phoneNumberId, assistant_id: assistant.id, display_name: 'Acme Support', ...(options.webhookUrl ? { webhook_url: options.webhookUrl } : {}) },
  });
  expect(created.status, created.text).toBe(201);
  return { user, assistant, sender: created.body.data, phoneNumberId };
}

/** Adds a template to a sender through the API; answers its id. */
export async function createTestTemplate(platform: TestPlatform, owner: TestSender, body: Record<string, unknown> = {}): Promise<number> {
  const created = await platform.request('POST', `/user/whatsapp/senders/${owner.sender.id}/templates`, {
    token: owner.user.token,
    body: { name: 'appointment_reminder', language: 'en', category: 'utility', body_text: 'Hi {{1}}, see you on {{2}}.', ...body },
  });
  expect(created.status, created.text).toBe(201);
  return created.body.data.id as number;
}
