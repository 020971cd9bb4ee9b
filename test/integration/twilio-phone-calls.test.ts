import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import { twilioSignatureOf } from '../../src/api/middleware/signatures.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import { searchAttributes, workflowIds } from '../../src/temporal/names.ts';
import { workflowTypes } from '../../src/temporal/shared.ts';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/llm-server.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { ownerWithNumbers, personCalleeTurn, placeCall, settledCall, speakers, type BoughtNumber } from '../support/phone-calls.ts';
import { listenOnLoopback } from '../support/ports.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import type { TestUser } from '../support/users.ts';

const PUBLIC_URL = 'https://parley.example.test';

/**
 * The sandbox's phone-call flows on the Twilio carrier: the real adapter against the fake Twilio, which plays
 * each call it is asked to place on the simulated phone network (the callee by the number's last two digits),
 * posts the status callbacks and answering-machine verdicts Twilio would, signed with its auth token, to
 * Parley's public URL (tunnelled here), and connects the answered call to the media gateway by the call's
 * `<Connect><Stream>`. Calls that do not depend on each other run at once: speech (Whisper, espeak-ng) is slow.
 */
describe.skipIf(!speechInstalled)(`phone calls through Twilio${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let twilio: FakeTwilio;
  let platform: TestPlatform;
  let owner: TestUser;
  let assistantId: number;
  let from: string;
  let inboundNumber: string;


  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond(personCalleeTurn);
    twilio = await startFakeTwilio({ placesCalls: true });
    const settings = { provider: 'twilio' as const, accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url };
    platform = await startTestPlatform({
      worker: true, media: true, env: { PUBLIC_URL, LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' }, providers: { telephony: createTwilioTelephony({ settings, publicUrl: PUBLIC_URL }) },
    });
    twilio.tunnel(PUBLIC_URL, platform.baseUrl);
    const bought = await ownerWithNumbers(platform, 2);
    owner = bought.owner;
    const [outbound, inbound] = bought.numbers as [BoughtNumber, BoughtNumber];
    from = outbound.phone_number;
    assistantId = (await createTestAssistant(platform, owner, { initial_message: 'Hello, this is Parley calling.', phone_number_id: outbound.id, post_call_evaluation: true })).id;
    inboundNumber = inbound.phone_number;
    await createTestAssistant(platform, owner, { type: 'inbound', initial_message: 'Thanks for calling Parley, this is Ada.', phone_number_id: inbound.id });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await twilio?.close();
    await llm?.close();
  });

  const knex = () => platform.database.knex;
  /** The call as the API shows it, its row, and Twilio's record of it, once its lifecycle is over. */
  async function outcome(callId: number) {
    const { shown, row } = await settledCall(platform, owner, callId);
    return { shown, row, twilioCall: twilio.calls.calls.get(row.providerCallId as string) };
  }
  /** Calls `to` with `POST /user/make_call`. */
  const call = async (to: string) => outcome(await placeCall(platform, owner, { phone_number: to, assistant_id: String(assistantId), variables: { customer_name: 'Sam' } }));
  /** A call to `to` whose phone rings `ringTimeoutSeconds` at most, started as make_call starts one, with a shorter ring. */
  async function callRinging(to: string, ringTimeoutSeconds: number) {
    const [row] = await knex()('calls').insert({
      userId: owner.id, assistantId, assistantName: 'Caller', type: 'outbound', assistantPhoneNumber: from, clientPhoneNumber: to,
    }).returning('id');
    const callId = Number((row as { id: number }).id);
    await platform.temporal.client.workflow.start(workflowTypes.callLifecycle, {
      taskQueue: platform.temporal.taskQueue, workflowId: workflowIds.call(callId), args: [{ callId, timing: { ringTimeoutSeconds } }],
      typedSearchAttributes: [{ key: searchAttributes.userId, value: owner.id }, { key: searchAttributes.assistantId, value: assistantId }],
    });
    return outcome(callId);
  }

  it('talks two turns with a person Twilio connects, and ends busy, failed and unanswered numbers as Twilio says', async () => {
    const [person, busy, failed, unanswered] = await Promise.all([
      call('+14155550123'), call('+14155550181'), call('+14155550196'), callRinging('+14155550185', 2),
    ]);

    expect(person.shown).toMatchObject({
      type: 'outbound', status: 'ended_by_customer', client_phone_number: '+14155550123', evaluation: expect.anything(), answered_by: 'human', carrier_cost: 0.014,
    });
    expect(speakers(person.row.turns)).toEqual(['assistant', 'user', 'assistant', 'user', 'assistant']);
    expect(person.row.transcript).toMatch(/^AI: Hello, this is Parley calling\.\nCustomer: .+\nAI: Nice to meet you, Sam\. I am calling about Parley\.\n/);
    expect(person.row.transcript).toMatch(/\nCustomer: .*bye.*\nAI: Thank you Sam, goodbye\.$/i);
    expect(person.row.duration).toBeGreaterThan(3);
    expect(person.shown.total_cost).toBeGreaterThan(0);
    // Twilio's record: its detection heard a person; the call, under a minute, priced as one.
    expect(person.twilioCall).toMatchObject({
      status: 'completed', direction: 'outbound-api', answered_by: 'human', price: '-0.01400', machine_detection: 'DetectMessageEnd', duration: expect.any(String),
    });
    expect(Math.abs(Number(person.twilioCall!.duration) - (person.row.duration as number))).toBeLessThanOrEqual(1);

    expect(busy.shown).toMatchObject({ status: 'busy', duration: 0, answered_by: null, carrier_cost: 0, total_cost: 0 });
    expect(busy.twilioCall).toMatchObject({ status: 'busy', start_time: null, price: null });
    expect(failed.row).toMatchObject({ status: 'failed', endReason: 'failed', answeredAt: null });
    expect(failed.twilioCall).toMatchObject({ status: 'failed' });
    expect(unanswered.row).toMatchObject({ status: 'no-answer', endReason: 'no-answer', answeredAt: null, answeredBy: null });
    expect(Number(unanswered.row.totalCostMicros)).toBe(0);
    // Twilio rang for the call's ring timeout; Parley's own timer of the same length may stop the ringing first.
    expect(unanswered.twilioCall).toMatchObject({ status: expect.stringMatching(/^(no-answer|canceled)$/), timeout: 2, start_time: null });
  }, 120_000);

  it('hangs up on a voicemail box, and answers a caller to a number with its inbound assistant', async () => {
    const caller = twilio.calls.ring({ from: '+14155550142', to: inboundNumber, lines: ['Thank you, goodbye.'] });
    const [voicemail, inbound] = await Promise.all([
      call('+14155550190'),
      (async () => {
        await expect.poll(() => knex()('calls').where({ providerCallId: caller }).first(), { timeout: 10_000, interval: 100 }).toBeTruthy();
        return outcome(Number((await knex()('calls').where({ providerCallId: caller }).first()).id));
      })(),
    ]);

    expect(voicemail.shown).toMatchObject({ status: 'ended_by_assistant', answered_by: 'machine', carrier_cost: 0.014 });
    expect(voicemail.row).toMatchObject({ endReason: 'voicemail' });
    // Parley's end of the stream ended the call at Twilio, which priced it.
    expect(voicemail.twilioCall).toMatchObject({ status: 'completed', price: '-0.01400' });

    expect(inbound.row).toMatchObject({ type: 'inbound', status: 'ended_by_customer', assistantPhoneNumber: inboundNumber, clientPhoneNumber: '+14155550142' });
    expect(inbound.row.variables).toMatchObject({ customer_phone: '+14155550142' });
    expect(inbound.row.transcript).toMatch(/^AI: Thanks for calling Parley, this is Ada\.\nCustomer: .+/);
    expect(inbound.twilioCall).toMatchObject({ direction: 'inbound', from: '+14155550142', to: inboundNumber, status: 'completed', price: '-0.01400' });
  }, 90_000);

  it('hangs up a live call on Status=completed, and hands one over to a <Dial>, posting its outcome signed', async () => {
    // Parley's side of a call, stood in for: a media stream that takes the audio, and a page for the transfer's outcome.
    const outcomes: { url: string; form: URLSearchParams; signature: string }[] = [];
    const server = http.createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        outcomes.push({ url: `${local.url}${request.url}`, form: new URLSearchParams(Buffer.concat(chunks).toString()), signature: String(request.headers['x-twilio-signature']) });
        response.writeHead(200, { 'content-type': 'text/xml' }).end('<Response><Hangup/></Response>');
      });
    });
    const streams = new WebSocketServer({ server });
    const local = await listenOnLoopback(server);
    const carrier = platform.providers.telephony.calls!;
    const place = (to: string) => carrier.placeCall({
      from, to, stream: { url: local.url.replace(/^http/, 'ws'), parameters: { callId: 'stand-in' } }, statusCallbackUrl: `${local.url}/status`, ringTimeoutSeconds: 10,
    }, { key: randomUUID(), since: new Date(), retried: false });
    const live = async (callSid: string) => expect.poll(() => twilio.calls.calls.get(callSid)?.status, { timeout: 10_000, interval: 50 }).toBe('in-progress');
    try {
      const [hungUp, handedOver] = await Promise.all([place('+14155550125'), place('+14155550123')]);
      await Promise.all([live(hungUp.providerCallId), live(handedOver.providerCallId)]);

      await carrier.endCall(hungUp.providerCallId);
      await expect.poll(() => twilio.calls.calls.get(hungUp.providerCallId), { timeout: 5000, interval: 50 }).toMatchObject({ status: 'completed', duration: expect.stringMatching(/^[1-9]$/), price: '-0.01400' });

      await carrier.transferCall(handedOver.providerCallId, { to: '+14155550124', callerId: from, outcomeUrl: `${local.url}/transferred`, ringTimeoutSeconds: 10 });
      await expect.poll(() => twilio.calls.calls.get(handedOver.providerCallId)?.status, { timeout: 10_000, interval: 100 }).toBe('completed');
      const outcome = outcomes.find((posted) => posted.url.endsWith('/transferred'))!;
      expect(Object.fromEntries(outcome.form)).toMatchObject({ CallSid: handedOver.providerCallId, DialCallStatus: 'completed', DialBridged: 'true' });
      expect(outcome.signature).toBe(twilioSignatureOf(twilio.authToken, outcome.url, outcome.form));
      // Only the status changes the adapter asked for, in order, and the end: each signed over its URL.
      const statuses = outcomes.filter((posted) => posted.url.endsWith('/status') && posted.form.get('CallSid') === hungUp.providerCallId);
      expect(statuses.map((posted) => posted.form.get('CallStatus'))).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
      for (const posted of statuses) expect(posted.signature).toBe(twilioSignatureOf(twilio.authToken, posted.url, posted.form));
    } finally {
      streams.close();
      await local.close();
    }
  }, 30_000);
});
