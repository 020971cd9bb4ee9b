import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CarrierPricePendingError, createPhoneCallActivities } from '../../activities/phone-calls.ts';
import { PHONE_STREAM_PATH, phoneStreamToken } from '../../src/lib/media-control.ts';
import { RejectedError } from '../../src/lib/errors.ts';
import { createLogger } from '../../src/logger.ts';
import type { CallRequest, TelephonyProvider } from '../../src/providers/telephony/types.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

/** A carrier that records the calls it is asked to place, answering `next` for each, and prices calls from `prices`. */
function recordingCarrier() {
  const placed: CallRequest[] = [];
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
      placeCall(request) {
        placed.push(request);
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
  return { telephony, placed, ended, prices, answerWith: (answer: typeof next) => { next = answer; } };
}

describe('phone call activities: dialing once, dropping the line, and the carrier\'s price', () => {
  let platform: TestPlatform;
  let carrier: ReturnType<typeof recordingCarrier>;
  let activities: ReturnType<typeof createPhoneCallActivities>;

  beforeAll(async () => {
    platform = await startTestPlatform({ env: { PUBLIC_URL: 'https://parley.example.test', MEDIA_PUBLIC_URL: 'wss://media.parley.example.test' } });
    carrier = recordingCarrier();
    activities = createPhoneCallActivities({
      knex: platform.database.knex,
      logger: createLogger(platform.config),
      config: platform.config,
      providers: { telephony: carrier.telephony, secrets: platform.providers.secrets },
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
      from: '+14155550100',
      to: '+14155550123',
      stream: { url: `wss://media.parley.example.test${PHONE_STREAM_PATH}`, parameters: { callId: String(callId), token: phoneStreamToken(platform.providers.secrets, callId) } },
      statusCallbackUrl: `https://parley.example.test/api/telephony/sandbox/status?call_id=${callId}`,
      answeredByCallbackUrl: `https://parley.example.test/api/telephony/sandbox/answered-by?call_id=${callId}`,
      ringTimeoutSeconds: 30,
    }]);
    const row = await knex()('calls').where({ id: callId }).first();
    expect(row).toMatchObject({ providerCallId: `CA${before + 1}`, dialStartedAt: expect.any(Date) });
    // A retried activity finds the call placed.
    expect(await activities.dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
    expect(carrier.placed).toHaveLength(before + 1);
    await activities.endCarrierCall({ callId });
    expect(carrier.ended.at(-1)).toBe(`CA${before + 1}`);
  });

  it('does not dial again when an earlier try reached the carrier and only its answer was lost', async () => {
    const callId = await outboundCall({ dialStartedAt: new Date() });
    const before = carrier.placed.length;
    // The carrier's first status callback records its call id a moment later.
    setTimeout(() => void knex()('calls').where({ id: callId }).update({ providerCallId: 'CAfromcallback' }).then(), 300);
    expect(await activities.dialCall({ callId, ringTimeoutSeconds: 30 })).toEqual({ dialed: true });
    expect(carrier.placed).toHaveLength(before);
  });

  it('answers a call the carrier refuses, or a carrier without calls, as not dialed', async () => {
    carrier.answerWith(() => Promise.reject(new RejectedError('Twilio would not call +14155550123: geo permissions.')));
    expect(await activities.dialCall({ callId: await outboundCall(), ringTimeoutSeconds: 30 })).toEqual({ dialed: false, reason: 'Twilio would not call +14155550123: geo permissions.' });
    carrier.answerWith(() => Promise.reject(new Error('socket hang up')));
    await expect(activities.dialCall({ callId: await outboundCall(), ringTimeoutSeconds: 30 })).rejects.toThrow('socket hang up');
    const { calls: _calls, ...withoutCalls } = carrier.telephony;
    const numbersOnly = createPhoneCallActivities({ knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: { telephony: withoutCalls, secrets: platform.providers.secrets } });
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
});
