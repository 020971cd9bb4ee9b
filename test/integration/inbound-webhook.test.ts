import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { twilioSignatureOf } from '../../src/lib/twilio-signature.ts';
import { sandboxCarrierToken } from '../../src/providers/telephony/sandbox.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { verifySignature } from '../../src/webhooks/signature.ts';
import { startFakeLlmServer, type FakeLlmServer, type FakeTurn } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { webhookReceiver as receiver } from '../support/webhooks.ts';

const CALLER = '+14155550142';
const JSON_HEADERS = { 'content-type': 'application/json' };

/**
 * The inbound-call webhook: asked before a call to one of the numbers is answered, through the sandbox carrier's
 * voice webhook, with a local receiver (allowed through FETCH_ALLOW_HOSTS) standing for the customer's endpoint.
 */
describe('the inbound-call webhook', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond((request): FakeTurn => request.tool_choice
      ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'A short call.' } }] }
      : { reply: 'Thank you, goodbye.' });
    platform = await startTestPlatform({ worker: true, media: speechInstalled, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  const knex = () => platform.database.knex;

  /** A number held by `owner` (a new user unless given), answered by an inbound assistant whose inbound webhook posts to `url`. */
  async function staffedNumber(url: string | null, owner?: TestUser) {
    owner ??= await createTestUser(knex(), { balanceUsd: 5 });
    const phoneNumber = `+1415${String(Math.floor(Math.random() * 9_000_000) + 1_000_000)}`;
    const [number] = await knex()('phone_numbers').insert({ userId: owner.id, phoneNumber, countryCode: 'US', type: 'normal', smsCapable: true, status: 'active' }).returning('id');
    const assistant = await createTestAssistant(platform, owner, {
      name: 'Front desk', type: 'inbound', phone_number_id: (number as { id: number }).id, variables: { company: 'Acme', customer_name: 'there' },
    });
    if (url !== null) {
      const enabled = await platform.request('POST', '/user/assistants/enable-inbound-webhook', { token: owner.token, body: { assistant_id: assistant.id, webhook_url: url } });
      expect(enabled.body).toEqual({ message: 'Webhook enabled successfully', data: [] });
    }
    return { owner, assistant, phoneNumber };
  }

  /** The sandbox carrier's signed callback at `path` (`voice`, `status`), as it posts them for a number's calls. */
  const carrierCallback = (path: string, params: Record<string, string>) => {
    const url = `/api/telephony/sandbox/${path}`;
    const form = new URLSearchParams({ Direction: 'inbound', ...params });
    return fetch(`${platform.baseUrl}${url}`, {
      method: 'POST',
      body: form.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(platform.providers.telephony.callbackToken(), `${platform.config.publicUrl}${url}`, form) },
    });
  };

  /**
   * A call to `to` announced by the carrier; the TwiML it is answered with, how long that took, and the call's row.
   * The caller hangs up before the stream (the call's lifecycle ends `failed`), so no call is left running.
   */
  async function ring(to: string) {
    const callSid = `CA${crypto.randomUUID().replaceAll('-', '')}`;
    const started = performance.now();
    const answered = await carrierCallback('voice', { CallSid: callSid, From: CALLER, To: to, CallStatus: 'ringing' });
    const elapsedMs = performance.now() - started;
    expect(answered.status).toBe(200);
    const twiml = await answered.text();
    const call = await knex()('calls').where({ providerCallId: callSid }).first();
    if (call) {
      await carrierCallback('status', { CallSid: callSid, CallStatus: 'completed' });
      await platform.temporal.client.workflow.getHandle(workflowIds.call(Number(call.id))).result();
    }
    return { twiml, elapsedMs, call };
  }

  const deliveries = async (owner: TestUser) => (await platform.request('GET', '/user/webhook-deliveries', { token: owner.token })).body.data as Record<string, unknown>[];

  it('posts the caller, the number called and the assistant, signed, and merges the variables answered over the assistant\'s', async () => {
    const hook = await receiver();
    const { owner, assistant, phoneNumber } = await staffedNumber(hook.url);
    hook.script({ status: 200, headers: JSON_HEADERS, body: JSON.stringify({ variables: { customer_name: 'Sam', plan: 'gold', customer_phone: '+19999999999' } }) });
    const { twiml, call } = await ring(phoneNumber);
    expect(twiml).toContain('<Connect><Stream');

    expect(hook.received).toHaveLength(1);
    const [request] = hook.received;
    expect(JSON.parse(request!.body)).toEqual({
      event: 'call.inbound', call_id: call.id, customer_phone: CALLER, assistant_phone: phoneNumber, assistant: { id: assistant.id, uuid: assistant.uuid, name: 'Front desk' },
    });
    const [delivery] = await deliveries(owner);
    expect(request!.headers).toMatchObject({
      'content-type': 'application/json', 'user-agent': 'Parley-Webhooks/1.0', 'idempotency-key': delivery!.event_id, 'x-parley-event': 'call.inbound',
    });
    const secret = (await platform.request('GET', '/user/webhook-signing-secret', { token: owner.token })).body.data.secret as string;
    const signature = request!.headers['x-parley-signature'] as string;
    expect(verifySignature(signature, request!.body, secret, Math.floor(Date.now() / 1000))).toBe(true);
    expect(verifySignature(signature, request!.body.replace(CALLER, '+14155550143'), secret, Math.floor(Date.now() / 1000))).toBe(false);

    // The receiver's over the assistant's; the caller's number stays the caller's.
    expect(call.variables).toEqual({ company: 'Acme', customer_name: 'Sam', plan: 'gold', customer_phone: CALLER });
    expect(delivery).toMatchObject({
      kind: 'call.inbound', assistant_id: assistant.id, call_id: call.id, status: 'delivered', attempts_count: 1, next_attempt_at: null, last_error: null,
      attempts: [{ attempt: 1, status_code: 200, error: null, response_excerpt: expect.stringContaining('"plan":"gold"') }],
    });
    // Asked once, before its call: never again.
    const redelivered = await platform.request('POST', `/user/webhook-deliveries/${delivery!.id as number}/redeliver`, { token: owner.token });
    expect(redelivered).toMatchObject({ status: 422, body: { message: expect.stringContaining('cannot be redelivered') } });
  });

  it('takes the variables from a `data` envelope too', async () => {
    const hook = await receiver();
    const { phoneNumber } = await staffedNumber(hook.url);
    hook.script({ status: 200, headers: JSON_HEADERS, body: JSON.stringify({ data: { variables: { customer_name: 'Kim' } } }) });
    const { call } = await ring(phoneNumber);
    expect(call.variables).toEqual({ company: 'Acme', customer_name: 'Kim', customer_phone: CALLER });
  });

  it('answers a call whose receiver is slow after 2 s, without its variables, and logs the failure', async () => {
    const hook = await receiver();
    const { owner, phoneNumber } = await staffedNumber(hook.url);
    hook.script({ status: 200, headers: JSON_HEADERS, body: JSON.stringify({ variables: { customer_name: 'Late' } }), delayMs: 5000 });
    const { twiml, elapsedMs, call } = await ring(phoneNumber);
    console.log(`inbound webhook: a call whose receiver takes 5 s was answered after ${Math.round(elapsedMs)} ms`);
    expect(twiml).toContain('<Connect><Stream');
    expect(elapsedMs).toBeGreaterThanOrEqual(1900);
    expect(elapsedMs).toBeLessThan(3500);
    expect(call.variables).toEqual({ company: 'Acme', customer_name: 'there', customer_phone: CALLER });
    const [delivery] = await deliveries(owner);
    expect(delivery).toMatchObject({
      kind: 'call.inbound', status: 'failed', attempts_count: 1, last_error: expect.stringContaining('did not answer within 2 s'),
      attempts: [{ attempt: 1, status_code: null, error: expect.stringContaining('did not answer within 2 s') }],
    });
    expect((delivery!.attempts as { latency_ms: number }[])[0]!.latency_ms).toBeGreaterThanOrEqual(1900);
  });

  it('answers a call whose receiver fails with 500 or answers something other than a JSON object, without variables, and logs each', async () => {
    const hook = await receiver();
    const { owner, phoneNumber } = await staffedNumber(hook.url);
    const answers = [
      { answer: { status: 500, headers: JSON_HEADERS, body: '{"variables":{"customer_name":"Err"}}' }, lastError: 'HTTP 500', error: null },
      { answer: { status: 200, headers: { 'content-type': 'text/plain' }, body: 'OK' }, lastError: 'The answer is not JSON.', error: 'The answer is not JSON.' },
      { answer: { status: 200, headers: JSON_HEADERS, body: '["Sam"]' }, lastError: 'The answer is not a JSON object.', error: 'The answer is not a JSON object.' },
    ];
    for (const { answer, lastError, error } of answers) {
      hook.script(answer);
      const { twiml, call } = await ring(phoneNumber);
      expect(twiml).toContain('<Connect><Stream');
      expect(call.variables).toEqual({ company: 'Acme', customer_name: 'there', customer_phone: CALLER });
      const delivery = (await deliveries(owner)).find((entry) => entry.call_id === call.id);
      expect(delivery).toMatchObject({ status: 'failed', attempts_count: 1, last_error: lastError, attempts: [{ status_code: answer.status, error, response_excerpt: answer.body }] });
    }
    // Tried once each: no retries.
    expect(hook.received).toHaveLength(answers.length);
  });

  it('sends nothing for an assistant whose inbound webhook was turned off, nor for a call turned away at the plan\'s limit', async () => {
    const hook = await receiver();
    const { owner, assistant, phoneNumber } = await staffedNumber(hook.url);
    const disabled = await platform.request('POST', '/user/assistants/disable-inbound-webhook', { token: owner.token, body: { assistant_id: assistant.id } });
    expect(disabled.body).toEqual({ message: 'Inbound webhook disabled successfully', data: [] });
    const { twiml, call } = await ring(phoneNumber);
    expect(twiml).toContain('<Connect><Stream');
    expect(call.variables).toEqual({ company: 'Acme', customer_name: 'there', customer_phone: CALLER });

    const busy = await staffedNumber(hook.url);
    const planId = `one-line-${busy.owner.id}`;
    await knex()('plans').insert({ id: planId, name: 'One line', maxCallsInParallel: 1 });
    await knex()('users').where({ id: busy.owner.id }).update({ planId });
    await knex()('calls').insert({ userId: busy.owner.id, assistantName: 'Busy line', type: 'outbound', status: 'in-progress' });
    expect((await ring(busy.phoneNumber)).twiml).toBe('<?xml version="1.0" encoding="UTF-8"?><Response><Reject reason="busy"/></Response>');

    expect(hook.received).toEqual([]);
    expect(await deliveries(owner)).toEqual([]);
    expect(await deliveries(busy.owner)).toEqual([]);
  });

  it.skipIf(!speechInstalled)(`gives the answered variables to the conversation's system prompt${speechInstalled ? '' : ` (${speechSkipReason})`}`, async () => {
    // A number the sandbox carrier holds, so that its simulated caller can ring it and talk.
    const owner = await createTestUser(knex(), { balanceUsd: 5 });
    await platform.request('POST', '/user/payment-methods', { token: owner.token, body: { payment_method: 'pm_card_visa' } });
    const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: owner.token });
    const bought = await platform.request<{ data: { id: number; phone_number: string } }>('POST', '/user/phone-numbers/purchase', { token: owner.token, body: { phone_number: offers.body.data[0]!.phone_number } });
    expect(bought.status, bought.text).toBe(201);
    const assistant = await createTestAssistant(platform, owner, {
      type: 'inbound', phone_number_id: bought.body.data.id, initial_message: 'Thanks for calling {{company}}.',
      system_prompt: 'You answer the phone for {{company}}. The caller is {{customer_name}}, on the {{plan}} plan.', variables: { company: 'Acme', customer_name: 'there' },
    });
    const hook = await receiver();
    await platform.request('POST', '/user/assistants/enable-inbound-webhook', { token: owner.token, body: { assistant_id: assistant.id, webhook_url: hook.url } });
    hook.script({ status: 200, headers: JSON_HEADERS, body: JSON.stringify({ variables: { customer_name: 'Sam', plan: 'gold' } }) });

    const rung = await fetch(`${platform.baseUrl}/api/sandbox/carrier/inbound`, {
      method: 'POST',
      headers: { 'authorization': `Bearer ${sandboxCarrierToken(platform.providers.secrets)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ from: CALLER, to: bought.body.data.phone_number, lines: ['Thank you, goodbye.'] }),
    });
    expect(rung.status).toBe(201);
    const { sid } = (await rung.json()) as { sid: string };
    await expect.poll(() => knex()('calls').where({ providerCallId: sid }).first(), { timeout: 10_000, interval: 100 }).toBeTruthy();
    const { id } = await knex()('calls').where({ providerCallId: sid }).first();
    // The call's lifecycle starts once its row is written: wait for it to exist before waiting for its end.
    const lifecycle = platform.temporal.client.workflow.getHandle(workflowIds.call(Number(id)));
    await expect.poll(() => lifecycle.describe().then(() => true, () => false), { timeout: 10_000, interval: 100 }).toBe(true);
    await lifecycle.result();

    expect(hook.received).toHaveLength(1);
    const prompts = llm.requests.filter((request) => !request.tool_choice).map((request) => request.messages.find((message) => message.role === 'system')?.content ?? '');
    expect(prompts.some((prompt) => prompt.includes('You answer the phone for Acme. The caller is Sam, on the gold plan.'))).toBe(true);
    expect((await knex()('calls').where({ id }).first()).transcript).toMatch(/^AI: Thanks for calling Acme\./);
  }, 60_000);

  it('turns the inbound and conversation-ended webhooks on and off with the texts of §5.6', async () => {
    const owner = await createTestUser(knex());
    const assistant = await createTestAssistant(platform, owner);
    const post = (path: string, body: Record<string, unknown>, token = owner.token) => platform.request('POST', `/user/assistants/${path}`, { token, body });
    const read = async () => (await platform.request('GET', `/user/assistant/${assistant.id}`, { token: owner.token })).body;
    const url = 'https://crm.example.com/hooks';

    expect((await post('enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: url })).body).toEqual({ message: 'Webhook enabled successfully', data: [] });
    expect((await post('enable-conversation-ended-webhook', { assistant_id: assistant.id, webhook_url: `${url}/ended` })).body)
      .toEqual({ message: 'Conversation ended webhook enabled successfully', data: [] });
    expect(await read()).toMatchObject({ inbound_webhook_url: url, conversation_ended_webhook_url: `${url}/ended`, is_webhook_active: false, webhook_url: null });
    expect((await post('disable-inbound-webhook', { assistant_id: assistant.id })).body).toEqual({ message: 'Inbound webhook disabled successfully', data: [] });
    expect((await post('disable-conversation-ended-webhook', { assistant_id: assistant.id })).body)
      .toEqual({ message: 'Conversation ended webhook disabled successfully', data: [] });
    expect(await read()).toMatchObject({ inbound_webhook_url: null, conversation_ended_webhook_url: null });

    const stranger = await createTestUser(knex());
    const foreign = await post('enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: url }, stranger.token);
    expect(foreign.status).toBe(404);
    const missing = await post('disable-conversation-ended-webhook', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.assistant_id).toEqual(['The assistant id field is required.']);
    expect((await post('enable-inbound-webhook', { assistant_id: assistant.id, webhook_url: 'not a url' })).status).toBe(422);
  });
});
