import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import type { TwilioWebhook } from '../fakes/twilio/messages.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestSender, createTestTemplate, type TestSender } from '../support/whatsapp.ts';

const PUBLIC_URL = 'https://parley.example.test';
const CUSTOMER = '+4915112345678';
const CONTENT_SID = `HX${'ab'.repeat(16)}`;

describe('WhatsApp on Twilio (the fake of its Messages API and webhooks), and read receipts (W3, §13.3)', () => {
  let twilio: FakeTwilio;
  let llm: FakeLlmServer;
  let receiver: WebhookReceiver;
  let platform: TestPlatform;

  beforeAll(async () => {
    twilio = await startFakeTwilio();
    llm = await startFakeLlmServer();
    receiver = await startWebhookReceiver();
    const settings = { provider: 'twilio' as const, accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url };
    platform = await startTestPlatform({
      worker: true,
      env: { PUBLIC_URL, LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' },
      providers: { telephony: createTwilioTelephony({ settings, publicUrl: PUBLIC_URL }) },
    });
  });
  afterAll(async () => {
    await platform.close();
    await twilio.close();
    await llm.close();
    await receiver.close();
  });

  const knex = () => platform.database.knex;
  /** Posts a webhook the fake built for PUBLIC_URL to this platform, as Twilio would deliver it there. */
  const deliver = (webhook: TwilioWebhook, signature = webhook.signature) => {
    const url = new URL(webhook.url);
    return fetch(`${platform.baseUrl}${url.pathname}${url.search}`, {
      method: 'POST', body: webhook.form.toString(), headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature },
    });
  };
  const receiptsOf = (owner: TestSender) => receiver.received.filter((request) => (JSON.parse(request.body) as { sender: { id: number } }).sender.id === owner.sender.id);
  const sendTemplate = async (owner: TestSender, name = 'appointment_reminder') => {
    const template = await createTestTemplate(platform, owner, { name, content_sid: CONTENT_SID });
    const sent = await platform.request('POST', '/user/whatsapp/send', {
      token: owner.user.token, body: { sender_id: owner.sender.id, template_id: template, recipient_phone: CUSTOMER, variables: { 1: 'Ada', 2: 'Tuesday' } },
    });
    expect(sent.status, sent.text).toBe(200);
    return sent.body as { whatsapp_message_id: string; message_sid: string; conversation_id: string };
  };

  it('sends a template by its Content SID and reports sent, delivered and read to the sender\'s webhook, signed with its secret', async () => {
    const owner = await createTestSender(platform, { webhookUrl: receiver.url });
    const sent = await sendTemplate(owner);
    expect(twilio.messages.messages.get(sent.message_sid)?.resource).toMatchObject({ from: `whatsapp:${owner.sender.phone_number}`, to: `whatsapp:${CUSTOMER}`, status: 'queued' });
    expect(twilio.messages.messages.get(sent.message_sid)?.resource.body).toContain('"1":"Ada"');

    for (const status of ['sent', 'delivered', 'read']) expect((await deliver(twilio.messages.report(sent.message_sid, status))).status).toBe(200);
    // Out of order, late: changes nothing and reports nothing.
    await deliver(twilio.messages.report(sent.message_sid, 'delivered'));
    await expect.poll(() => receiptsOf(owner).length, { timeout: 15_000, interval: 100 }).toBe(3);
    const receipts = receiptsOf(owner).map((request) => ({ request, body: JSON.parse(request.body) as Record<string, unknown> }));
    expect(receipts.map(({ body }) => body.status).sort()).toEqual(['delivered', 'read', 'sent']);
    for (const { request, body } of receipts) {
      expect(request.headers['x-signature-256']).toBe(`sha256=${createHmac('sha256', owner.sender.signing_secret).update(request.body).digest('hex')}`);
      expect(body).toMatchObject({
        event: 'message_status', whatsapp_message_id: sent.whatsapp_message_id, message_sid: sent.message_sid, meta_message_id: null, conversation_id: sent.conversation_id,
        assistant_id: owner.assistant.uuid, sender: { id: owner.sender.id, phone_number: owner.sender.phone_number, display_name: 'Acme Support' },
        to: CUSTOMER, from: owner.sender.phone_number, direction: 'outbound', error_code: null, provider_timestamp: null,
      });
      expect(body.test).toBeUndefined();
    }
    expect((await knex()('whatsapp_messages').where({ id: Number(sent.whatsapp_message_id) }).first()).status).toBe('read');
  });

  it('refunds a message Twilio reports failed, reports it, and ends a receipt a 4xx refused without retrying; a 5xx is retried after 30 s', async () => {
    const owner = await createTestSender(platform, { webhookUrl: receiver.url });
    const sent = await sendTemplate(owner);
    receiver.script({ status: 404 });
    await deliver(twilio.messages.report(sent.message_sid, 'failed', 63016));
    await expect.poll(async () => (await knex()('webhook_deliveries').where({ whatsappSenderId: owner.sender.id }).first())?.status, { timeout: 15_000, interval: 100 }).toBe('failed');
    expect(JSON.parse(receiptsOf(owner)[0]!.body)).toMatchObject({ status: 'failed', error_code: '63016', error_description: expect.stringContaining('template') });
    expect(await knex()('balance_transactions').where({ userId: owner.user.id }).whereNot({ kind: 'adjustment' }).orderBy('id').select('kind', 'amountMicros'))
      .toEqual([{ kind: 'whatsapp', amountMicros: -50_000 }, { kind: 'whatsapp_refund', amountMicros: 50_000 }]);

    const second = await sendTemplate(owner, 'second_reminder');
    receiver.script({ status: 503 });
    await deliver(twilio.messages.report(second.message_sid, 'sent'));
    await expect.poll(async () => knex()('webhook_deliveries').where({ whatsappSenderId: owner.sender.id, attempts: 1, status: 'pending' }).first(), { timeout: 15_000, interval: 100 }).toBeTruthy();
    const pending = await knex()('webhook_deliveries').where({ whatsappSenderId: owner.sender.id, status: 'pending' }).first();
    const attempt = await knex()('webhook_delivery_attempts').where({ deliveryId: pending.id }).first();
    expect(pending.nextAttemptAt.getTime() - attempt.attemptedAt.getTime()).toBe(30_000);
  });

  it('retries a read receipt its receiver answered 429 after 30 s, as a 5xx (§13.3)', async () => {
    const owner = await createTestSender(platform, { webhookUrl: receiver.url });
    const sent = await sendTemplate(owner);
    receiver.script({ status: 429 });
    await deliver(twilio.messages.report(sent.message_sid, 'sent'));
    await expect.poll(async () => knex()('webhook_deliveries').where({ whatsappSenderId: owner.sender.id, attempts: 1, status: 'pending' }).first(), { timeout: 15_000, interval: 100 }).toBeTruthy();
    const pending = await knex()('webhook_deliveries').where({ whatsappSenderId: owner.sender.id, status: 'pending' }).first();
    const attempt = await knex()('webhook_delivery_attempts').where({ deliveryId: pending.id }).first();
    expect(attempt.statusCode).toBe(429);
    expect(pending.nextAttemptAt.getTime() - attempt.attemptedAt.getTime()).toBe(30_000);
  });

  it('answers a customer\'s WhatsApp message through Twilio with the sender\'s assistant, once however often Twilio posts it', async () => {
    const owner = await createTestSender(platform);
    llm.script({ reply: 'We open at nine.' });
    const webhook = twilio.messages.receiveWhatsApp({ from: CUSTOMER, to: owner.sender.phone_number, body: 'When do you open?', profileName: 'Ada' });
    for (let attempt = 0; attempt < 2; attempt++) expect((await deliver(webhook)).status).toBe(200);
    const replies = [...twilio.messages.messages.values()].map((message) => message.resource).filter((message) => message.from === `whatsapp:${owner.sender.phone_number}`);
    expect(replies).toEqual([expect.objectContaining({ to: `whatsapp:${CUSTOMER}`, body: 'We open at nine.' })]);
    const conversation = await knex()('conversations').where({ whatsappSenderId: owner.sender.id }).first();
    expect(conversation).toMatchObject({ type: 'whatsapp', customerPhone: CUSTOMER, customerName: 'Ada', messageCount: 2 });
    expect((await deliver(webhook, twilioSignatureOf('forged', webhook.url, webhook.form))).status).toBe(403);
  });

  it('sends a test event with `test: true`, and refuses one for a sender without a webhook URL', async () => {
    const owner = await createTestSender(platform, { webhookUrl: receiver.url });
    const test = await platform.request('POST', `/user/whatsapp/senders/${owner.sender.id}/test-webhook`, { token: owner.user.token });
    expect(test).toMatchObject({ status: 202, body: { success: true, delivery_id: expect.any(Number) } });
    await expect.poll(() => receiptsOf(owner).length, { timeout: 15_000, interval: 100 }).toBe(1);
    expect(JSON.parse(receiptsOf(owner)[0]!.body)).toMatchObject({ event: 'message_status', status: 'read', test: true });

    const silent = await createTestSender(platform);
    const refused = await platform.request('POST', `/user/whatsapp/senders/${silent.sender.id}/test-webhook`, { token: silent.user.token });
    expect(refused).toMatchObject({ status: 422, body: { success: false, error_code: 'WEBHOOK_NOT_CONFIGURED' } });
  });
});
