import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, lastUserText, type FakeLlmServer } from '../fakes/llm-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { launchChromium, screenshots } from '../support/browser.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestSender, type TestSender } from '../support/whatsapp.ts';

const CUSTOMER = '+4915112345678';

/**
 * A person at the sandbox WhatsApp phone page in a browser, end to end: the page writes to a sender as the
 * customer, the sender's assistant (the fake language model) answers through the sandbox carrier, the page shows
 * the reply's statuses as the carrier reports them, and marking it read reaches the sender's read-receipt
 * webhook (W3) through the real worker.
 */
describe('the sandbox WhatsApp phone in a browser', () => {
  let llm: FakeLlmServer;
  let receiver: WebhookReceiver;
  let platform: TestPlatform;
  let browser: Browser;
  let owner: TestSender;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond((request) => ({ reply: /open/i.test(lastUserText(request)) ? 'Hi Ada! We open at nine.' : 'Sorry, what would you like?' }));
    receiver = await startWebhookReceiver();
    platform = await startTestPlatform({ worker: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
    owner = await createTestSender(platform, { webhookUrl: receiver.url });
    browser = await launchChromium();
    fs.mkdirSync(screenshots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await llm?.close();
    await receiver?.close();
  });

  it('writes as the customer, shows the assistant\'s reply with its statuses, and marks it read, which reaches the sender\'s webhook', async () => {
    const page = await browser.newPage({ viewport: { width: 520, height: 900 } });
    const status = page.getByRole('status');
    await page.goto(`${platform.baseUrl}/sandbox/whatsapp`);
    await expect.poll(() => status.textContent()).toBe('Choose your number and a sender to start.');
    // The senders to pick from, with their display names.
    await expect.poll(() => page.locator(`#senders option[value="${owner.sender.phone_number}"]`).getAttribute('label')).toBe('Acme Support');

    await page.getByLabel('Your number').fill(CUSTOMER);
    await page.getByLabel('Your name').fill('Ada');
    await page.getByLabel('Sender\'s number').fill(owner.sender.phone_number);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => status.textContent()).toBe(`Chatting as ${CUSTOMER}.`);
    expect(await page.getByRole('heading', { level: 2 }).textContent()).toBe('Chat with Acme Support');

    await page.getByLabel('Message').fill('Hello, when do you open?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => status.textContent()).toBe('Sent.');
    const chat = page.getByRole('list', { name: 'Chat' });
    const customerMessages = chat.locator('.message.customer .text');
    const senderMessages = chat.locator('.message.sender');
    expect(await customerMessages.allTextContents()).toEqual(['Hello, when do you open?']);
    await expect.poll(() => senderMessages.locator('.text').allTextContents()).toEqual(['Hi Ada! We open at nine.']);
    expect(await senderMessages.locator('.who').textContent()).toBe('Acme Support');
    // The carrier reports sent, then delivered; the page polls and shows each.
    const replyState = senderMessages.locator('.state');
    await expect.poll(() => replyState.textContent()).toBe('delivered');
    const conversation = await platform.database.knex('conversations').where({ whatsappSenderId: owner.sender.id }).first();
    expect(conversation).toMatchObject({ customerPhone: CUSTOMER, customerName: 'Ada' });

    await page.getByRole('button', { name: 'Mark read' }).click();
    await expect.poll(() => status.textContent()).toBe('Marked 1 message read.');
    await expect.poll(() => replyState.textContent()).toBe('read');
    expect(await page.getByRole('button', { name: 'Mark read' }).isDisabled()).toBe(true);
    await page.screenshot({ path: path.join(screenshots, 'whatsapp-phone.png') });

    // The reply's statuses reach the sender's webhook, read among them, signed for the reply the page showed.
    await expect.poll(() => receiver.received.map((request) => (JSON.parse(request.body) as { status: string }).status).sort(), { timeout: 15_000 }).toEqual(['delivered', 'read', 'sent']);
    const sid = platform.sandboxCarrier!.whatsapp.chat(owner.sender.phone_number, CUSTOMER).find((message) => message.direction === 'outbound-api')!.sid;
    const read = receiver.received.map((request) => JSON.parse(request.body) as Record<string, unknown>).find((body) => body.status === 'read');
    expect(read).toMatchObject({
      event: 'message_status', message_sid: sid, conversation_id: conversation.uuid, to: CUSTOMER, from: owner.sender.phone_number, direction: 'outbound',
      sender: { id: owner.sender.id, phone_number: owner.sender.phone_number, display_name: 'Acme Support' },
    });
  });

  it('shows the server\'s reason when a chat cannot be opened', async () => {
    const page = await browser.newPage();
    await page.goto(`${platform.baseUrl}/sandbox/whatsapp`);
    // The sender's own number is Parley's, not a customer's.
    await page.getByLabel('Your number').fill(owner.sender.phone_number);
    await page.getByLabel('Sender\'s number').fill(owner.sender.phone_number);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.getByRole('status').textContent()).toBe(`${owner.sender.phone_number} is one of Parley's numbers: the page's phone is a customer's, any number nobody on Parley holds.`);
    expect(await page.getByRole('list', { name: 'Chat' }).isHidden()).toBe(true);
  });

  it('refuses what a customer\'s phone could not do, each with its reason', async () => {
    const chat = (query: Record<string, string>) => platform.request('GET', `/sandbox/whatsapp/chat?${new URLSearchParams(query).toString()}`);
    expect(await chat({ sender: '+14155550000', phone: CUSTOMER })).toMatchObject({ status: 404, body: { message: '+14155550000 is not a WhatsApp sender on Parley.' } });
    expect(await chat({ sender: owner.sender.phone_number, phone: '12345' })).toMatchObject({ status: 400, body: { message: expect.stringContaining('12345 is not a valid phone number') } });
    // Written as people write numbers, it is the same chat.
    const spaced = await chat({ sender: owner.sender.phone_number, phone: '+49 151 1234 5678' });
    expect(spaced.status).toBe(200);
    expect(spaced.body.data.map((message: { from: string }) => message.from)).toEqual(['customer', 'sender']);
    const blank = await platform.request('POST', '/sandbox/whatsapp/messages', { body: { sender: owner.sender.phone_number, phone: CUSTOMER, body: '   ' } });
    expect(blank).toMatchObject({ status: 400, body: { message: 'A message needs some text.' } });
    const long = await platform.request('POST', '/sandbox/whatsapp/messages', { body: { sender: owner.sender.phone_number, phone: CUSTOMER, body: 'x'.repeat(1601) } });
    expect(long.status).toBe(422);
    // Nothing new was delivered: there is nothing to mark read.
    expect(await platform.request('POST', '/sandbox/whatsapp/read', { body: { sender: owner.sender.phone_number, phone: CUSTOMER } })).toMatchObject({ status: 200, body: { marked: 0 } });
  });
});

describe('the sandbox WhatsApp phone on another carrier', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`, TWILIO_AUTH_TOKEN: 'token' } });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('is not there: the page, its script and its routes are 404', async () => {
    expect((await fetch(`${platform.baseUrl}/sandbox/whatsapp`)).status).toBe(404);
    expect((await fetch(`${platform.baseUrl}/sandbox/whatsapp.js`)).status).toBe(404);
    expect((await platform.request('GET', '/sandbox/whatsapp/senders')).status).toBe(404);
    expect((await platform.request('POST', '/sandbox/whatsapp/messages', { body: { sender: '+14155550100', phone: CUSTOMER, body: 'Hi' } })).status).toBe(404);
  });
});
