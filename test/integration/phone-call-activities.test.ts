import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierPricePendingError, createPhoneCallActivities } from '../../activities/phone-calls.ts';
import { PHONE_STREAM_PATH, phoneStreamToken } from '../../src/lib/media-control.ts';
import { RejectedError } from '../../src/lib/errors.ts';
import { createLogger } from '../../src/logger.ts';
import { createSandboxTelephony } from '../../src/providers/telephony/sandbox.ts';
import { createTwilioTelephony } from '../../src/providers/telephony/twilio.ts';
import type { CallRequest, DialAttempt, TelephonyProvider } from '../../src/providers/telephony/types.ts';
import { startFakeTwilio, type FakeTwilio } from '../fakes/twilio/server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

/** A carrier that records the calls it is asked to place, answering `next` for each, and prices calls from `prices`. */
function recordingCarrier() {
  const placed: CallRequest[] = [];
  const attempts: DialAttempt[] = [];
  const ended: string[] = [];
  const prices = new Map<string, number>();
  let next: () => Promise<{ providerCallId: string }> = () => Promise.resolve({ providerCallId: `CA${placed.length}` });
  const telephony: TelephonyProvider = {
    name: 'sandbox',
    searchNumbers: () => Promise.resolve([]),
    provisionNumber: () => Promise.reject(new Error('not asked here')),
    configureNumber: () => Promise.reject(new Error('not asked here')),
    releaseNumber: () => Promise.resolve(),
    callbackToken: () => 'callback-token',
    calls: {
      placeCall(request, attempt) {
        placed.push(request);
        attempts.push(attempt);
        return next();
      },
      endCall(providerCallId) {
        ended.push(providerCallId);
        return Promise.resolve();
      },
      transferCall: () => Promise.reject(new Error('not asked here')),
      callPrice: (providerCallId) => Promise.resolve(prices.get(providerCallId)),
    },
  };
  return { telephony, placed, attempts, ended, prices, answerWith: (answer: typeof next) => { next = answer; } };
}

describe('phone call activities: dialing once, dropping the line, and the carrier\'s price', () => {
  let platform: TestPlatform;
  let carrier: ReturnType<typeof recordingCarrier>;
  let activities: ReturnType<typeof createPhoneCallActivities>;

  beforeAll(async () => {
    // Parley's own address as PUBLIC_URL: the sandbox carrier's API is served there.
    platform = await startTestPlatform({ env: { MEDIA_PUBLIC_URL: 'wss://media.parley.example.test' } });
    carrier = recordingCarrier();
    activities = createPhoneCallActivities({
      knex: platform.database.knex,
      logger: createLogger(platform.config),
      config: platform.config,
      providers: { telephony: carrier.telephony, secrets: platform.providers.secrets, sipTrunks: platform.providers.sipTrunks },
    });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const outboundCall = async (fields: Record<string, unknown> = {}) => {
    const user = await createTestUser(knex());
    const [row] = await knex()('calls').insert({
      userId: user.id, assistantName: 'Ada', type: 'outbound', assistantPhoneNumber: '+14155550100', clientPhoneNumber: '+14155550123', ...fields,
    }).returning('id');
    return Number((row as { id: number }).id);
  };

  it('dials from the assistant\'s number to the customer, streaming to the media gateway with the call\'s credential, once', async () => {
    const callId = await outboundCall();
    const before = carrier.placed.length;
    expect(await activities.dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
    expect(carrier.placed.slice(before)).toEqual([{
      callId,
      from: '+14155550100',
      to: '+14155550123',
      stream: { url: `wss://media.parley.example.test${PHONE_STREAM_PATH}`, parameters: { callId: String(callId), token: phoneStreamToken(platform.providers.secrets, callId) } },
      statusCallbackUrl: `${platform.baseUrl}/api/telephony/sandbox/status?call_id=${callId}`,
      answeredByCallbackUrl: `${platform.baseUrl}/api/telephony/sandbox/answered-by?call_id=${callId}`,
      ringTimeoutSeconds: 30,
    }]);
    const row = await knex()('calls').where({ id: callId }).first();
    expect(row).toMatchObject({ providerCallId: `CA${before + 1}`, dialStartedAt: expect.any(Date), dialAttemptKey: expect.stringMatching(new RegExp(`^dial-${callId}-`)) });
    expect(carrier.attempts.at(-1)).toEqual({ key: row.dialAttemptKey, since: row.dialStartedAt, retried: false });
    // A retried activity finds the call placed.
    expect(await activities.dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
    expect(carrier.placed).toHaveLength(before + 1);
    await activities.endCarrierCall({ callId });
    expect(carrier.ended.at(-1)).toBe(`CA${before + 1}`);
  });

  it('presents the first try\'s key again when its answer was lost, marked as a retry', async () => {
    const callId = await outboundCall();
    carrier.answerWith(() => Promise.reject(new Error('socket hang up')));
    await expect(activities.dialCall({ callId, ringTimeoutSeconds: 30 })).rejects.toThrow('socket hang up');
    const first = carrier.attempts.at(-1)!;
    carrier.answerWith(() => Promise.resolve({ providerCallId: 'CAadopted' }));
    expect(await activities.dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
    expect(carrier.attempts.at(-1)).toEqual({ ...first, retried: true });
    expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ providerCallId: 'CAadopted', dialAttemptKey: first.key });
  });

  it('answers a call the carrier refuses, or a carrier without calls, as not dialed', async () => {
    carrier.answerWith(() => Promise.reject(new RejectedError('Twilio would not call +14155550123: geo permissions.')));
    expect(await activities.dialCall({ callId: await outboundCall(), ringTimeoutSeconds: 30 })).toEqual({ dialed: false, reason: 'Twilio would not call +14155550123: geo permissions.' });
    carrier.answerWith(() => Promise.reject(new Error('socket hang up')));
    await expect(activities.dialCall({ callId: await outboundCall(), ringTimeoutSeconds: 30 })).rejects.toThrow('socket hang up');
    const { calls: _calls, ...withoutCalls } = carrier.telephony;
    const numbersOnly = createPhoneCallActivities({ knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: { telephony: withoutCalls, secrets: platform.providers.secrets, sipTrunks: platform.providers.sipTrunks } });
    expect(await numbersOnly.dialCall({ callId: await outboundCall(), ringTimeoutSeconds: 30 })).toMatchObject({ dialed: false });
    // A call never dialed has no line to drop.
    await numbersOnly.endCarrierCall({ callId: await outboundCall() });
  });

  it('records the carrier\'s price of a call once the carrier gives it, and nothing for a call it never carried', async () => {
    const callId = await outboundCall({ providerCallId: `CApriced${Date.now()}` });
    const { providerCallId } = await knex()('calls').where({ id: callId }).first();
    // Not priced yet: an error the workflow's retry policy asks again after.
    await expect(activities.recordCarrierCost({ callId })).rejects.toThrow(CarrierPricePendingError);
    carrier.prices.set(providerCallId as string, 28_000);
    expect(await activities.recordCarrierCost({ callId })).toEqual({ carrierCostMicros: 28_000 });
    expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ carrierCostMicros: 28_000, totalCostMicros: 0 });
    expect(await activities.recordCarrierCost({ callId: await outboundCall() })).toEqual({ carrierCostMicros: 0 });
  });

  describe('a dial retried after the carrier\'s answer was lost places one call', () => {
    let twilio: FakeTwilio;
    beforeAll(async () => {
      twilio = await startFakeTwilio();
    });
    afterAll(() => twilio.close());

    const activitiesWith = (telephony: TelephonyProvider) => createPhoneCallActivities({
      knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: { telephony, secrets: platform.providers.secrets, sipTrunks: platform.providers.sipTrunks },
    });

    it('at Twilio, which takes no key: the retry finds the call the lost try created, From to To since the attempt, and adopts it', async () => {
      const telephony = createTwilioTelephony({
        settings: { provider: 'twilio', accountSid: twilio.accountSid, authToken: twilio.authToken, apiBase: twilio.url }, publicUrl: platform.baseUrl,
      });
      const [offer] = await telephony.searchNumbers({ countryCode: 'US', limit: 1 });
      await telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: `dial-twice-${Date.now()}` });
      const dialing = activitiesWith(telephony);
      const callsTo = (to: string) => [...twilio.calls.calls.values()].filter((call) => call.from === offer!.phoneNumber && call.to === to);
      // An earlier call between the same numbers, before this dial began, is not the dial's.
      const to = '+14155550142';
      const earlier = await dialing.dialCall({ callId: await outboundCall({ assistantPhoneNumber: offer!.phoneNumber, clientPhoneNumber: to }), ringTimeoutSeconds: 30 });
      expect(earlier).toEqual({ dialed: true });
      // A first try dials at once: no lookup.
      const lookups = () => twilio.requests.filter((request) => request.method === 'GET' && request.path.endsWith('/Calls.json'));
      expect(lookups()).toHaveLength(0);
      twilio.calls.calls.get(callsTo(to)[0]!.sid)!.date_created = new Date(Date.now() - 60_000).toUTCString().replace('GMT', '+0000');

      const callId = await outboundCall({ assistantPhoneNumber: offer!.phoneNumber, clientPhoneNumber: to });
      twilio.loseAnswerNext('/Calls.json');
      await expect(dialing.dialCall({ callId, ringTimeoutSeconds: 30 })).rejects.toThrow();
      expect(callsTo(to)).toHaveLength(2);
      expect(await dialing.dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
      const placed = callsTo(to);
      expect(placed).toHaveLength(2);
      expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ providerCallId: placed[1]!.sid });
      expect(lookups()).toHaveLength(1);
      expect(Object.fromEntries(lookups()[0]!.query)).toMatchObject({ To: to, From: offer!.phoneNumber });

      // A try that never reached Twilio: the retry finds nothing and dials, once.
      const unreached = await outboundCall({ assistantPhoneNumber: offer!.phoneNumber, clientPhoneNumber: '+14155550143' });
      twilio.dropNext('/Calls.json');
      await expect(dialing.dialCall({ callId: unreached, ringTimeoutSeconds: 30 })).rejects.toThrow();
      expect(callsTo('+14155550143')).toHaveLength(0);
      expect(await dialing.dialCall({ callId: unreached, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
      expect(callsTo('+14155550143')).toHaveLength(1);
    });

    it('at the sandbox carrier, which remembers the key itself and answers the call it placed for it', async () => {
      const telephony = createSandboxTelephony({ knex: knex, secrets: () => platform.providers.secrets, publicUrl: () => platform.baseUrl });
      const [offer] = await telephony.searchNumbers({ countryCode: 'US', limit: 1 });
      await telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: `dial-twice-${Date.now()}` });
      // The callee fails at once (its last two digits): the simulated call ends without a media gateway.
      const to = '+14155550195';
      const callId = await outboundCall({ assistantPhoneNumber: offer!.phoneNumber, clientPhoneNumber: to });
      const lostAnswer: TelephonyProvider = {
        ...telephony,
        calls: { ...telephony.calls!, placeCall: async (request, attempt) => {
          await telephony.calls!.placeCall(request, attempt);
          throw new Error('socket hang up');
        } },
      };
      await expect(activitiesWith(lostAnswer).dialCall({ callId, ringTimeoutSeconds: 30 })).rejects.toThrow('socket hang up');
      expect(await activitiesWith(telephony).dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
      const placed = platform.sandboxCarrier!.callsTo(to).filter((call) => call.request.from === offer!.phoneNumber);
      expect(placed).toHaveLength(1);
      expect(await knex()('calls').where({ id: callId }).first()).toMatchObject({ providerCallId: placed[0]!.sid });
    });
  });
});
