import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RejectedError } from '../../src/lib/errors.ts';
import { twilioSignatureOf } from '../../src/lib/twilio-signature.ts';
import { sandboxCarrierToken } from '../../src/providers/telephony/sandbox.ts';
import type { TelephonyProvider } from '../../src/providers/telephony/types.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

interface Received {
  path: string;
  form: URLSearchParams;
  signature: string | undefined;
}

/**
 * Where the sandbox carrier sends calls to its numbers: Parley's routes from provisioning on, or wherever the
 * number is configured to send them; it rings only numbers it holds.
 */
describe('the sandbox carrier routes calls to its numbers as they are configured', () => {
  let platform: TestPlatform;
  let telephony: TelephonyProvider;
  let elsewhere: LoopbackServer;
  const received: Received[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform();
    telephony = platform.providers.telephony;
    elsewhere = await listenOnLoopback(http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      request.on('end', () => {
        received.push({ path: request.url ?? '', form: new URLSearchParams(body), signature: request.headers['x-twilio-signature'] as string | undefined });
        response.writeHead(200, { 'content-type': 'text/xml' }).end('<?xml version="1.0" encoding="UTF-8"?><Response><Reject/></Response>');
      });
    }));
  });
  afterAll(async () => {
    await platform.close();
    await elsewhere.close();
  });

  const provision = async () => {
    const [offer] = await telephony.searchNumbers({ countryCode: 'US', limit: 1 });
    const { providerNumberId } = await telephony.provisionNumber({ phoneNumber: offer!.phoneNumber, idempotencyKey: `sandbox-routing-${randomUUID()}` });
    return { phoneNumber: offer!.phoneNumber, providerNumberId };
  };
  const ring = (to: string) => fetch(`${platform.baseUrl}/api/sandbox/carrier/inbound`, {
    method: 'POST',
    headers: { 'authorization': `Bearer ${sandboxCarrierToken(platform.providers.secrets)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: '+14155550142', to }),
  });
  const rung = async (to: string) => {
    const answer = await ring(to);
    expect(answer.status).toBe(201);
    const { sid } = await answer.json() as { sid: string };
    await expect.poll(() => platform.sandboxCarrier!.get(sid)?.endedAt, { timeout: 10_000, interval: 50 }).toBeDefined();
    return platform.sandboxCarrier!.get(sid)!;
  };

  it("points a provisioned number at Parley, whose voice webhook rejects a number it does not hold: the caller hears busy", async () => {
    const { phoneNumber, providerNumberId } = await provision();
    const base = `${platform.config.publicUrl}/api/telephony/sandbox`;
    expect(await platform.database.knex('sandbox_phone_numbers').where({ id: providerNumberId }).first()).toMatchObject({
      voiceUrl: `${base}/voice`, statusCallbackUrl: `${base}/status`, smsUrl: `${base}/messages`,
    });
    // Held by the carrier, but by no one at Parley.
    expect(await rung(phoneNumber)).toMatchObject({ direction: 'inbound', status: 'busy' });
    expect(await platform.database.knex('calls').where({ assistantPhoneNumber: phoneNumber })).toEqual([]);
  });

  it('sends the calls of a number configured elsewhere there, signed, with their status changes', async () => {
    const { phoneNumber, providerNumberId } = await provision();
    const routing = { voiceUrl: `${elsewhere.url}/voice`, statusCallbackUrl: `${elsewhere.url}/status`, smsUrl: `${elsewhere.url}/messages` };
    await telephony.configureNumber(providerNumberId, routing);
    const call = await rung(phoneNumber);
    expect(call.status).toBe('busy');
    // The carrier marks the call ended before it posts the status change that says so.
    const ofCall = () => received.filter((request) => request.form.get('CallSid') === call.sid);
    await expect.poll(() => ofCall().length).toBe(2);
    const [voice, status] = ofCall();
    expect(voice).toMatchObject({ path: '/voice' });
    expect(Object.fromEntries(voice!.form)).toMatchObject({ To: phoneNumber, From: '+14155550142', Direction: 'inbound', CallStatus: 'ringing' });
    expect(voice!.signature).toBe(twilioSignatureOf(telephony.callbackToken(), routing.voiceUrl, voice!.form));
    expect(status).toMatchObject({ path: '/status' });
    expect(status!.form.get('CallStatus')).toBe('busy');
  });

  it('rings only numbers it holds, and configures only those', async () => {
    const { phoneNumber, providerNumberId } = await provision();
    await telephony.releaseNumber(providerNumberId);
    const refused = await ring(phoneNumber);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ message: `${phoneNumber} is not a number of the sandbox carrier: it rings only numbers bought from it.` });
    await expect(telephony.configureNumber(providerNumberId, { voiceUrl: elsewhere.url, statusCallbackUrl: elsewhere.url, smsUrl: elsewhere.url }))
      .rejects.toThrow(RejectedError);
  });
});
