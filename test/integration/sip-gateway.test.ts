import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { lastUserText, type ChatCompletionRequest, type FakeTurn } from '../fakes/llm-server.ts';
import { startWebhookReceiver } from '../fakes/webhook-receiver.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { baresipInstalled, baresipSkipReason, lineWav } from '../support/baresip.ts';
import { placeCall, settledCall } from '../support/phone-calls.ts';
import type { TestPlatform } from '../support/platform.ts';
import { sipOptions } from '../support/sip-probe.ts';
import { sipTestbed } from '../support/sip-testbed.ts';
import { rms, speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const skipReason = !baresipInstalled ? baresipSkipReason : !speechInstalled ? speechSkipReason : '';

/** Each assistant's prompt names its part, which the fake model plays. */
function scenario(request: ChatCompletionRequest): FakeTurn {
  const prompt = request.messages[0]?.content ?? '';
  const heard = lastUserText(request);
  const afterTool = request.messages.at(-1)?.role === 'tool' ? request.messages.findLast((m) => m.tool_calls)?.tool_calls?.[0]?.function.name : undefined;
  if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'A SIP call.' } }] };
  if (prompt.includes('[keys]')) {
    if (afterTool === 'end_call') return { reply: 'Goodbye.' };
    if (afterTool === 'dtmf_input') return { toolCalls: [{ name: 'end_call', arguments: {} }] };
    if (/pressed 42#/.test(heard)) return { toolCalls: [{ name: 'dtmf_input', arguments: { digits: '7' } }] };
    return { reply: 'Please type your number.' };
  }
  if (prompt.includes('[caller]')) return afterTool === 'end_call' ? { reply: 'Goodbye.' } : { toolCalls: [{ name: 'end_call', arguments: {} }] };
  if (/goodbye/i.test(heard)) return { reply: 'Thank you, goodbye.' };
  return { reply: 'Nice to meet you. How can I help?' };
}

describe.skipIf(skipReason !== '')(`SIP trunks through the SIP gateway${skipReason ? ` (${skipReason})` : ''}`, () => {
  const bed = sipTestbed(scenario);
  const { farEnd, trunk, lastCallOf, settled, closedWith } = bed;
  const audio: Record<'talk' | 'keys' | 'quiet' | 'long', string> = { talk: '', keys: '', quiet: '', long: '' };
  let owner: TestUser;
  let platform: TestPlatform;
  let port: number;
  let tlsPort: number;
  beforeAll(async () => {
    ({ owner, platform, port, tlsPort } = bed);
    audio.talk = await lineWav(path.join(bed.dir, 'talk.wav'), [4500, 'Hello, my name is Sam.', 6000, 'Thank you, goodbye.', 3000]);
    audio.keys = await lineWav(path.join(bed.dir, 'keys.wav'), [30_000]);
    audio.quiet = await lineWav(path.join(bed.dir, 'quiet.wav'), [8000]);
  }, 60_000);
  const knex = () => platform.database.knex;

  it('answers OPTIONS over UDP, TCP and TLS, refuses unknown numbers, and gives a caller from a trunk\'s address to its inbound assistant over SRTP', async () => {
    expect(await sipOptions('127.0.0.1', port, 'udp')).toBe('SIP/2.0 200 OK');
    expect(await sipOptions('127.0.0.1', port, 'tcp')).toBe('SIP/2.0 200 OK');
    expect(await sipOptions('127.0.0.1', tlsPort, 'tls')).toBe('SIP/2.0 200 OK');
    const trunkId = await trunk(owner, { phone_number: '+4930123456', allowed_inbound_ips: ['127.0.0.0/24'] });
    await createTestAssistant(platform, owner, { type: 'inbound', initial_message: 'Thanks for calling Parley.', phone_number_id: trunkId, system_prompt: '[talk]' });

    // The caller's phone takes nothing but SRTP: the conversation below is held encrypted both ways.
    const caller = await farEnd({ user: '+4915112345678', audio: audio.talk, mediaenc: 'srtp-mand' });
    await caller.command('dial', `sip:4930999999@127.0.0.1:${port}`);
    expect((await closedWith(caller)).param).toMatch(/404/);
    expect(await lastCallOf(owner)).toBeUndefined();

    // The carrier writes the number without its plus; the trunk holds it with one.
    await caller.command('dial', `sip:4930123456@127.0.0.1:${port}`);
    await caller.waitFor((event) => event.type === 'CALL_ESTABLISHED');
    await caller.waitFor((event) => event.type === 'CALL_CLOSED' && caller.events.some((e) => e.type === 'CALL_ESTABLISHED'), 60_000);
    const row = await settled(owner, Number((await lastCallOf(owner)).id));
    expect(row).toMatchObject({ type: 'inbound', status: 'ended_by_customer', clientPhoneNumber: '+4915112345678', assistantPhoneNumber: '+4930123456', endReason: 'customer_hangup' });
    expect(row.providerCallId).toMatch(/^SIP[0-9a-f]{32}$/);
    // A slow reply may be cut short by the caller's goodbye: the transcript holds what was heard.
    expect(row.transcript).toMatch(/^AI: Thanks for calling Parley\.\nCustomer: .+\nAI: Nice to meet you.*\nCustomer: .*goodbye.*/i);
    expect(row.duration).toBeGreaterThan(10);
    expect(Number(row.totalCostMicros)).toBeGreaterThan(0);
    // The caller heard the assistant: its recording of the call holds sound.
    const heard = fs.readFileSync(caller.recordings()[0]!);
    expect(rms(new Int16Array(heard.buffer, heard.byteOffset + 44, (heard.length - 44) >> 1))).toBeGreaterThan(100);
  }, 120_000);

  it('challenges callers of an auth trunk: a wrong password leaves no call; the right one trades keys with the assistant, who hangs up', async () => {
    const keysOwner = await createTestUser(knex(), { balanceUsd: 5 });
    const planId = `one-line-${keysOwner.id}`;
    await knex()('plans').insert({ id: planId, name: 'One line', maxCallsInParallel: 1 });
    await knex()('users').where({ id: keysOwner.id }).update({ planId });
    const trunkId = await trunk(keysOwner, { phone_number: '+4930222222', sip_username: 'pbx-login', sip_password: 'right-pass', inbound_authorization_type: 'auth', allowed_inbound_ips: [] });
    await createTestAssistant(platform, keysOwner, {
      type: 'inbound', initial_message: 'Please type your number.', phone_number_id: trunkId, system_prompt: '[keys]', tools: [{ type: 'dtmf_input' }, { type: 'end_call' }],
    });
    const intruder = await farEnd({ user: '+4915100000001', authUser: 'pbx-login', password: 'wrong-pass', audio: audio.quiet });
    await intruder.command('dial', `sip:+4930222222@127.0.0.1:${port}`);
    expect((await closedWith(intruder)).param).toMatch(/403/);
    expect(await lastCallOf(keysOwner)).toBeUndefined();
    await intruder.close();

    const caller = await farEnd({ user: '+4915100000002', authUser: 'pbx-login', password: 'right-pass', audio: audio.keys });
    await caller.command('dial', `sip:+4930222222@127.0.0.1:${port}`);
    await caller.waitFor((event) => event.type === 'CALL_ESTABLISHED');
    // Its owner's plan takes one call at a time: a second caller hears busy, and no call is recorded for it.
    const second = await farEnd({ user: '+4915100000003', authUser: 'pbx-login', password: 'right-pass', audio: audio.quiet });
    await second.command('dial', `sip:+4930222222@127.0.0.1:${port}`);
    expect((await closedWith(second)).param).toMatch(/486/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    for (const key of '42#') {
      await caller.command('sndcode', key);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    await closedWith(caller);
    expect(await knex()('calls').where({ userId: keysOwner.id })).toHaveLength(1);
    const row = await settled(keysOwner, Number((await lastCallOf(keysOwner)).id));
    expect(row).toMatchObject({ type: 'inbound', status: 'ended_by_assistant', clientPhoneNumber: '+4915100000002' });
    expect(row.transcript).toContain('[pressed 42#]');
    // The assistant's key went to the caller as a telephone event, not as a tone in its audio.
    expect(caller.keysReceived()).toBe('7');
    expect(bed.logged()).toContain('a SIP call came in');
    expect(bed.logged()).not.toContain('right-pass');
  }, 120_000);

  it('places calls through trunks: a callee who talks and hangs up; busy, unanswered and refused calls end as the far end said, unbilled', async () => {
    const caller = await createTestUser(knex(), { balanceUsd: 5 });
    const [talker, refuser, ringer] = [
      // baresip takes calls only for its own user: the callee's number as the trunk writes it (e164, no plus).
      await farEnd({ user: '4915112345678', audio: audio.talk, incoming: 'answer' }),
      await farEnd({ user: '4915112345678', audio: audio.quiet, incoming: 'refuse' }),
      await farEnd({ user: '4915112345678', audio: audio.quiet, incoming: 'ring' }),
    ];
    const assistantOn = async (number: string, address: string) => {
      const trunkId = await trunk(caller, { phone_number: number, sip_address: address, sip_calling_format: 'e164', allowed_inbound_ips: [address] });
      return (await createTestAssistant(platform, caller, { initial_message: 'Hello, this is Parley calling.', phone_number_id: trunkId, system_prompt: '[talk]' })).id;
    };
    const talk = await assistantOn('+4930333301', talker.host);
    const busy = await assistantOn('+4930333302', refuser.host);
    const away = await assistantOn('+4930333303', ringer.host);
    // The gateway itself as the far end: the number is none of its trunks', which it refuses with 404.
    const refused = await assistantOn('+4930333304', '127.0.0.1');
    const call = async (assistantId: number) => settledCall(platform, caller, await placeCall(platform, caller, { phone_number: '+4915112345678', assistant_id: assistantId }));
    const [talked, busyCall, awayCall, refusedCall] = await Promise.all([call(talk), call(busy), call(away), call(refused)]);

    expect(talked.shown).toMatchObject({ type: 'outbound', status: 'ended_by_customer', client_phone_number: '+4915112345678', answered_by: 'human' });
    expect(talked.row.providerCallId).toMatch(/^SIP[0-9a-f]{32}$/);
    expect(talked.row.transcript).toMatch(/^AI: Hello, this is Parley calling\.\nCustomer: .+\nAI: Nice to meet you/);
    expect(Number(talked.row.totalCostMicros)).toBeGreaterThan(0);
    // From is the trunk's number, written as the trunk's format like the callee's.
    expect((await talker.waitFor((event) => event.type === 'CALL_ESTABLISHED')).peeruri).toMatch(/^sip:4930333301@/);
    for (const [unanswered, status] of [[busyCall, 'busy'], [awayCall, 'no-answer'], [refusedCall, 'failed']] as const) {
      expect(unanswered.shown, status).toMatchObject({ status, duration: 0, total_cost: 0 });
      expect(unanswered.row.answeredAt, status).toBeNull();
    }
    expect(ringer.events.filter((event) => event.type === 'CALL_INCOMING')).toHaveLength(1);
    expect(ringer.events.some((event) => event.type === 'CALL_CLOSED')).toBe(true);
  }, 120_000);

  it('places a call through a trunk that challenges, answering with the trunk\'s credentials (the gateway itself as the carrier)', async () => {
    // The carrier's side: an account whose auth trunk answers the number with an assistant.
    const carrierSide = await createTestUser(knex(), { balanceUsd: 5 });
    const desk = await trunk(carrierSide, { phone_number: '+4930444444', sip_username: 'carrier-login', sip_password: 'pw-4444', inbound_authorization_type: 'auth', allowed_inbound_ips: [] });
    await createTestAssistant(platform, carrierSide, { type: 'inbound', initial_message: 'Parley desk, how can I help?', phone_number_id: desk, system_prompt: '[talk]' });
    const caller = await createTestUser(knex(), { balanceUsd: 5 });
    const outbound = await trunk(caller, { phone_number: '+4930555555', sip_address: '127.0.0.1', sip_username: 'carrier-login', sip_password: 'pw-4444' });
    // The caller waits for the desk to speak, as a person calling a business does, then hangs up.
    const assistant = await createTestAssistant(platform, caller, { initial_message: 'Hi.', wait_for_customer: true, phone_number_id: outbound, system_prompt: '[caller]', tools: [{ type: 'end_call' }] });
    const { shown } = await settledCall(platform, caller, await placeCall(platform, caller, { phone_number: '+4930444444', assistant_id: assistant.id }));
    expect(shown).toMatchObject({ status: 'ended_by_assistant' });
    const answered = await settled(carrierSide, Number((await lastCallOf(carrierSide)).id));
    expect(answered).toMatchObject({ type: 'inbound', status: 'ended_by_customer', clientPhoneNumber: '+4930555555' });
    expect(answered.transcript).toMatch(/^AI: Parley desk, how can I help\?/);
    expect(bed.logged()).toContain('placed a SIP call');
    expect(bed.logged()).not.toContain('pw-4444');
  }, 120_000);

  it('dials a campaign\'s lead through the trunk of its number and posts the call\'s webhook', async () => {
    const hooks = await startWebhookReceiver();
    onTestFinished(() => hooks.close());
    const dialer = await createTestUser(knex(), { balanceUsd: 5 });
    const callee = await farEnd({ user: '4915112340000', audio: audio.talk, incoming: 'answer' });
    const trunkId = await trunk(dialer, { phone_number: '+4930999901', sip_address: callee.host, sip_calling_format: 'e164', allowed_inbound_ips: [callee.host] });
    const assistant = await createTestAssistant(platform, dialer, { initial_message: 'Hello, this is Parley calling.', system_prompt: '[talk]' });
    const enabled = await platform.request('POST', '/user/assistants/enable-webhook', { token: dialer.token, body: { assistant_id: assistant.id, webhook_url: hooks.url } });
    expect(enabled.status, enabled.text).toBe(200);
    // A window around now in UTC, so the campaign never waits for one.
    const at = (offset: number) => `${String((new Date().getUTCHours() + offset + 24) % 24).padStart(2, '0')}:00`;
    const created = await platform.request('POST', '/user/campaigns', {
      token: dialer.token,
      body: { name: 'Trunk', assistant_id: assistant.id, phone_number_ids: [trunkId], timezone: 'UTC', allowed_hours_start_time: at(-1), allowed_hours_end_time: at(2) },
    });
    expect(created.status, created.text).toBe(201);
    const campaignId = created.body.data.id as number;
    expect((await platform.request('POST', '/user/lead', { token: dialer.token, body: { campaign_id: campaignId, phone_number: '+4915112340000' } })).status).toBe(200);
    const started = await platform.request('POST', '/user/campaigns/update-status', { token: dialer.token, body: { campaign_id: campaignId, action: 'start' } });
    expect(started.status, started.text).toBe(200);

    const [hook] = await hooks.arrived(1);
    const payload = JSON.parse(hook!.body) as Record<string, unknown>;
    const row = await knex()('calls').where({ campaignId }).first();
    expect(row.providerCallId).toMatch(/^SIP[0-9a-f]{32}$/);
    expect(payload).toMatchObject({
      id: Number(row.id), customer_phone: '+4915112340000', assistant_phone: '+4930999901', status: 'ended_by_customer',
      lead: { phone_number: '+4915112340000' }, campaign: { id: campaignId, name: 'Trunk' },
    });
    expect(payload.transcript).toMatch(/^AI: Hello, this is Parley calling\.\nCustomer: .+/);
    expect((await callee.waitFor((event) => event.type === 'CALL_ESTABLISHED')).peeruri).toMatch(/^sip:4930999901@/);
    await expect.poll(async () => (await knex()('campaigns').where({ id: campaignId }).first()).status, { timeout: 20_000 }).toBe('completed');
  }, 120_000);
});
