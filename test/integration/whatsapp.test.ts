import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { testClock } from '../support/clock.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';
import { createTestSender, createTestTemplate, type TestSender } from '../support/whatsapp.ts';

const CUSTOMER = '+4915112345678';

describe('WhatsApp on the sandbox carrier (§12.7)', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  const clock = testClock();

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    platform = await startTestPlatform({ clock: clock.now, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  const knex = () => platform.database.knex;
  const post = (owner: TestSender, path: string, body: unknown) => platform.request('POST', path, { token: owner.user.token, body });
  const get = (owner: TestSender, path: string) => platform.request('GET', path, { token: owner.user.token });
  const ledger = (owner: TestSender) => knex()('balance_transactions').where({ userId: owner.user.id }).whereNot({ kind: 'adjustment' }).orderBy('id').select('kind', 'amountMicros');
  /** The customer writes to the sender from the sandbox carrier's phone, as the browser page does. */
  const customerWrites = async (owner: TestSender, body: string, name = 'Ada') => {
    const received = await platform.sandboxCarrier!.whatsapp.receive({ sender: owner.sender.phone_number, phone: CUSTOMER, name, body });
    expect(received.answered).toBe(200);
  };

  it('lists senders by status and their templates by status, with variables derived; another user\'s sender is SENDER_NOT_FOUND', async () => {
    const owner = await createTestSender(platform);
    expect(owner.sender.signing_secret).toMatch(/^whsec_/);
    const approved = await createTestTemplate(platform, owner);
    await createTestTemplate(platform, owner, { name: 'promo', status: 'pending', body_text: 'Sale today!' });
    expect((await get(owner, '/user/whatsapp/senders')).body).toEqual({
      data: [{ id: owner.sender.id, phone_number: owner.sender.phone_number, display_name: 'Acme Support', status: 'online', quality_rating: 'high', messaging_limit: null, messaging_limit_formatted: 'Unlimited' }],
    });
    const templates = await get(owner, `/user/whatsapp/senders/${owner.sender.id}/templates`);
    expect(templates.body).toEqual({
      data: [{ id: approved, name: 'appointment_reminder', language: 'en', category: 'utility', status: 'approved', body_text: 'Hi {{1}}, see you on {{2}}.', variables: ['1', '2'], has_variables: true }],
    });
    expect((await get(owner, `/user/whatsapp/senders/${owner.sender.id}/templates?status=all`)).body.data).toHaveLength(2);

    const patched = await platform.request('PATCH', `/user/whatsapp/senders/${owner.sender.id}`, { token: owner.user.token, body: { status: 'offline', messaging_limit: 1000 } });
    expect(patched.body.data).toMatchObject({ status: 'offline', messaging_limit_formatted: '1K/day' });
    expect(patched.body.data.signing_secret).toBeUndefined();
    expect((await get(owner, '/user/whatsapp/senders')).body.data).toEqual([]);
    expect((await get(owner, '/user/whatsapp/senders?status=all')).body.data).toHaveLength(1);

    const stranger = await createTestUser(knex());
    const foreign = await platform.request('GET', `/user/whatsapp/senders/${owner.sender.id}/templates`, { token: stranger.token });
    expect(foreign).toMatchObject({ status: 404, body: { success: false, error: 'Sender not found', error_code: 'SENDER_NOT_FOUND' } });
    const deleted = await platform.request('DELETE', `/user/whatsapp/senders/${owner.sender.id}/templates/${approved}`, { token: owner.user.token });
    expect(deleted.body).toEqual({ success: true, message: 'Template deleted successfully' });
    expect((await platform.request('DELETE', `/user/whatsapp/senders/${owner.sender.id}/templates/${approved}`, { token: owner.user.token })).body.error_code).toBe('TEMPLATE_NOT_FOUND');
  });

  it('refuses a sender on a number that is not yours or is a sender already, with Laravel field errors', async () => {
    const owner = await createTestSender(platform);
    const again = await post(owner, '/user/whatsapp/senders', { phone_number_id: owner.phoneNumberId, assistant_id: owner.assistant.id, display_name: 'Twice' });
    expect(again).toMatchObject({ status: 422, body: { errors: { phone_number_id: ['The phone number id has already been taken.'] } } });
    const stranger = await createTestSender(platform);
    const foreign = await post(owner, '/user/whatsapp/senders', { phone_number_id: stranger.phoneNumberId, assistant_id: owner.assistant.id, display_name: 'Not mine' });
    expect(foreign).toMatchObject({ status: 422, body: { errors: { phone_number_id: ['The selected phone number id is invalid.'] } } });
  });

  it('sends an approved template, charged, and follows its delivery; every documented refusal answers its code', async () => {
    const owner = await createTestSender(platform);
    const template = await createTestTemplate(platform, owner);
    const pending = await createTestTemplate(platform, owner, { name: 'promo', status: 'pending', body_text: 'Sale!' });
    const send = (body: Record<string, unknown>) => post(owner, '/user/whatsapp/send', {
      sender_id: owner.sender.id, template_id: template, recipient_phone: CUSTOMER, recipient_name: 'Ada', variables: { 1: 'Ada', 2: 'Tuesday' }, ...body,
    });

    const sent = await send({});
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toEqual({
      success: true, conversation_id: expect.stringMatching(/^[0-9a-f-]{36}$/), message_id: expect.any(Number), whatsapp_message_id: expect.any(String),
      message_sid: expect.stringMatching(/^SM/), status: 'queued',
    });
    await expect.poll(async () => (await knex()('whatsapp_messages').where({ id: Number(sent.body.whatsapp_message_id) }).first()).status, { timeout: 5000, interval: 50 }).toBe('delivered');
    expect(platform.sandboxCarrier!.whatsapp.chat(owner.sender.phone_number, CUSTOMER).map((message) => message.body)).toEqual(['Hi Ada, see you on Tuesday.']);
    expect(await ledger(owner)).toEqual([{ kind: 'whatsapp', amountMicros: -50_000 }]);
    const history = await platform.request('GET', `/conversations/${sent.body.conversation_id}`);
    expect(history.body).toMatchObject({
      history: [{ role: 'assistant', content: 'Hi Ada, see you on Tuesday.', human: true }],
      whatsapp_sender: { name: 'Acme Support', phone: owner.sender.phone_number }, customer: { name: 'Ada', phone: CUSTOMER },
    });

    expect((await send({ template_id: 999_999 }))).toMatchObject({ status: 404, body: { success: false, error_code: 'TEMPLATE_NOT_FOUND' } });
    expect((await send({ sender_id: 999_999 }))).toMatchObject({ status: 404, body: { error_code: 'SENDER_NOT_FOUND' } });
    expect((await send({ template_id: pending }))).toMatchObject({ status: 422, body: { error_code: 'TEMPLATE_NOT_APPROVED' } });
    expect((await send({ recipient_phone: '12345' }))).toMatchObject({ status: 422, body: { success: false, error: 'Invalid phone number format', error_code: 'INVALID_PHONE' } });
    expect((await send({ variables: { 1: 'Ada' } }))).toMatchObject({ status: 422, body: { errors: { 'variables.2': ['The variables.2 field is required.'] } } });
    await platform.request('PATCH', `/user/whatsapp/senders/${owner.sender.id}`, { token: owner.user.token, body: { status: 'offline' } });
    expect((await send({}))).toMatchObject({ status: 422, body: { error_code: 'SENDER_OFFLINE' } });

    const poor = await createTestSender(platform, { balanceUsd: 0.01 });
    const poorTemplate = await createTestTemplate(platform, poor);
    const refused = await post(poor, '/user/whatsapp/send', { sender_id: poor.sender.id, template_id: poorTemplate, recipient_phone: CUSTOMER, variables: { 1: 'a', 2: 'b' } });
    expect(refused).toMatchObject({ status: 402, body: { success: false, error_code: 'INSUFFICIENT_BALANCE' } });
    expect(await knex()('whatsapp_messages').where({ userId: poor.user.id })).toEqual([]);
  });

  it('answers a customer\'s message with the sender\'s assistant, opens the 24-hour window, and sends free-form only inside it', async () => {
    const owner = await createTestSender(platform);
    const freeform = (body: Record<string, unknown> = {}) => post(owner, '/user/whatsapp/send-freeform', { sender_id: owner.sender.id, recipient_phone: CUSTOMER, message: 'A person here.', ...body });
    expect(await freeform()).toMatchObject({ status: 403, body: { success: false, error_code: 'SESSION_EXPIRED' } });
    const before = await get(owner, `/user/whatsapp/session-status?sender_id=${owner.sender.id}&recipient_phone=${encodeURIComponent(CUSTOMER)}`);
    expect(before.body).toEqual({
      success: true, has_conversation: false,
      session_status: { is_open: false, can_send_freeform: false, requires_template: true, message: expect.any(String), minutes_remaining: 0, expires_at: null },
    });

    llm.script({ reply: 'Hi Ada! How can Acme help?' });
    await customerWrites(owner, 'Hello, is the shop open?');
    const chat = platform.sandboxCarrier!.whatsapp.chat(owner.sender.phone_number, CUSTOMER);
    expect(chat.map((message) => [message.direction, message.body])).toEqual([['inbound', 'Hello, is the shop open?'], ['outbound-api', 'Hi Ada! How can Acme help?']]);
    expect(llm.requests.at(-1)?.messages.at(-1)).toEqual({ role: 'user', content: 'Hello, is the shop open?' });

    const session = await get(owner, `/user/whatsapp/session-status?sender_id=${owner.sender.id}&recipient_phone=${encodeURIComponent(CUSTOMER)}`);
    expect(session.body).toMatchObject({
      success: true, has_conversation: true, customer_name: 'Ada', last_customer_message_at: clock.now().toISOString(),
      session_status: { is_open: true, can_send_freeform: true, requires_template: false, minutes_remaining: 1440, expires_at: new Date(clock.now().getTime() + 86_400_000).toISOString() },
    });
    const sent = await freeform();
    expect(sent.status, sent.text).toBe(200);
    expect(sent.body).toMatchObject({ success: true, conversation_id: session.body.conversation_id, status: 'queued', session_status: { is_open: true } });
    // A chat message for the answered one, the free-form message.
    expect(await ledger(owner)).toEqual([{ kind: 'conversation_message', amountMicros: -10_000 }, { kind: 'whatsapp', amountMicros: -5_000 }]);

    const listed = await get(owner, `/user/conversations?type=whatsapp&whatsapp_sender_phone=${encodeURIComponent(owner.sender.phone_number)}&customer_phone=${encodeURIComponent(CUSTOMER)}`);
    expect(listed.body.data).toEqual([expect.objectContaining({
      id: session.body.conversation_id, type: 'whatsapp', message_count: 3, whatsapp_sender: { name: 'Acme Support', phone: owner.sender.phone_number }, customer: { name: 'Ada', phone: CUSTOMER },
    })]);
    expect((await get(owner, '/user/conversations?customer_phone=%2B4915100000000')).body.data).toEqual([]);

    // A blank message is missing, as Laravel trims input.
    expect(await freeform({ message: ' \n ' })).toMatchObject({ status: 422, body: { errors: { message: ['The message field is required.'] } } });

    clock.advance(24 * 60 * 60 * 1000);
    expect(await freeform()).toMatchObject({ status: 403, body: { error_code: 'SESSION_EXPIRED' } });
    expect(await freeform({ recipient_phone: 'not a phone' })).toMatchObject({ status: 422, body: { error_code: 'INVALID_PHONE' } });
    await platform.request('PATCH', `/user/whatsapp/senders/${owner.sender.id}`, { token: owner.user.token, body: { status: 'offline' } });
    expect(await freeform()).toMatchObject({ status: 503, body: { success: false, error_code: 'SENDER_OFFLINE' } });
  });

  it('stores a customer\'s message without a reply while a person has taken the conversation over', async () => {
    const owner = await createTestSender(platform);
    llm.script({ reply: 'Hello!' });
    await customerWrites(owner, 'Hi');
    const conversation = await knex()('conversations').where({ whatsappSenderId: owner.sender.id }).first();
    expect((await platform.request('POST', `/automate/conversations/${conversation.uuid}/disable-ai`, { token: owner.user.token })).status).toBe(200);
    const modelCalls = llm.requests.length;
    await customerWrites(owner, 'I want a human');
    expect(llm.requests.length).toBe(modelCalls);
    const history = await platform.request('GET', `/conversations/${conversation.uuid}`);
    expect(history.body.history.map((item: { content: string }) => item.content)).toEqual(['Hi', 'Hello!', 'I want a human']);
    expect(platform.sandboxCarrier!.whatsapp.chat(owner.sender.phone_number, CUSTOMER).filter((message) => message.direction === 'outbound-api')).toHaveLength(1);
  });
});
