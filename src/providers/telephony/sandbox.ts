import { isUniqueViolation } from '../../db/errors.ts';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { RejectedError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { callbackRouting } from './routing.ts';
import { drawNumbers, offerOf, REFUSED_DIGITS } from './sandbox-inventory.ts';
import type { CarrierCalls, CarrierMessages, NumberRouting, TelephonyProvider } from './types.ts';

/**
 * The embedded carrier: it offers numbers of its inventory (sandbox-inventory.ts), provisions them into
 * its own table (a restart changes nothing) with where their calls and messages go, and takes them back. A
 * number it holds for someone is not offered; released, it can be offered again. `publicUrl` is Parley's
 * PUBLIC_URL: numbers are pointed at Parley's routes there, and the api role serves the carrier's own API there.
 */
export function createSandboxTelephony(options: { knex: () => Knex; secrets: () => SecretBox; publicUrl: () => string }): TelephonyProvider {
  const { knex } = options;
  // Derived from the app key, which every process of a deployment shares.
  const token = () => sandboxCarrierToken(options.secrets());
  const api = carrierApi(() => `${options.publicUrl()}/api/sandbox/carrier`, token);

  async function configureNumber(providerNumberId: string, routing: NumberRouting): Promise<void> {
    const { voiceUrl, statusCallbackUrl, smsUrl } = routing;
    const updated = await knex()('sandbox_phone_numbers').where({ id: providerNumberId }).whereNull('released_at').update({ voiceUrl, statusCallbackUrl, smsUrl });
    if (updated === 0) throw new RejectedError(`The sandbox carrier holds no number ${providerNumberId}.`);
  }

  return {
    name: 'sandbox',
    callbackToken: token,
    calls: sandboxCalls(api),
    messages: sandboxMessages(api),
    configureNumber,

    async searchNumbers({ countryCode, contains = '', limit }) {
      // Drawn twice over, so that numbers held here can be left out and the page still fills.
      const drawn = drawNumbers(countryCode, contains, limit * 2);
      if (drawn.length === 0) return [];
      const held = new Set(await knex()('sandbox_phone_numbers')
        .whereIn('phone_number', drawn.map((number) => number.phoneNumber))
        .whereNull('released_at')
        .pluck<string[]>('phone_number'));
      return drawn.filter((number) => !held.has(number.phoneNumber)).slice(0, limit);
    },

    async provisionNumber({ phoneNumber, idempotencyKey }) {
      const db = knex();
      const parley = callbackRouting(options.publicUrl(), 'sandbox');
      const earlier = await db('sandbox_phone_numbers').where({ idempotencyKey }).first<{ id: string; releasedAt: Date | null } | undefined>('id', 'releasedAt');
      if (earlier && !earlier.releasedAt) {
        // Provisioned by this purchase before; pointed at Parley again in case its address changed since.
        await configureNumber(earlier.id, parley);
        return { providerNumberId: earlier.id };
      }
      if (earlier) throw new RejectedError(`The purchase ${idempotencyKey} already released its number.`);
      if (phoneNumber.includes(REFUSED_DIGITS)) throw new RejectedError(`The sandbox carrier declines numbers with ${REFUSED_DIGITS} in them (its number that fails on purpose).`);
      if (!offerOf(phoneNumber)) throw new RejectedError(`The sandbox carrier does not offer ${phoneNumber}.`);
      const id = `PNsbx${randomBytes(14).toString('hex')}`;
      try {
        await db('sandbox_phone_numbers').insert({ id, phoneNumber, idempotencyKey, ...parley });
      } catch (error) {
        if (!isUniqueViolation(error)) throw error;
        // The same key raced itself: the first insert stands. Another key holds the number: it is taken.
        const raced = await db('sandbox_phone_numbers').where({ idempotencyKey }).first<{ id: string } | undefined>('id');
        if (raced) return { providerNumberId: raced.id };
        throw new RejectedError(`${phoneNumber} is no longer available.`);
      }
      return { providerNumberId: id };
    },

    async releaseNumber(providerNumberId) {
      await knex()('sandbox_phone_numbers').where({ id: providerNumberId }).whereNull('released_at').update({ releasedAt: knex().fn.now() });
    },
  };
}

/** The sandbox carrier's key: it signs its callbacks with it, and Parley's processes present it to its API. */
export function sandboxCarrierToken(secrets: SecretBox): string {
  return secrets.sign('callbacks', 'sandbox-carrier');
}

/** A request to the sandbox carrier's API: its status and JSON answer. A request it refuses (400) is the caller's. */
interface CarrierAnswer { sid?: string; status?: string; message?: string; endedAt?: number; priceMicros?: number }
type CarrierRequest = (path: string, body?: unknown, method?: 'GET' | 'POST') => Promise<{ status: number; payload: CarrierAnswer }>;

/**
 * The sandbox carrier's API (simulators/sandbox-carrier/http), served by the api role at PUBLIC_URL: any process
 * dials and texts through it as Twilio's adapter calls Twilio, presenting the carrier's key.
 */
function carrierApi(apiUrl: () => string, token: () => string): CarrierRequest {
  return async (path, body, method = 'POST') => {
    const answer = await fetch(`${apiUrl()}${path}`, {
      method,
      headers: { 'authorization': `Bearer ${token()}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const payload = await answer.json().catch(() => ({})) as CarrierAnswer;
    if (answer.status === 400) throw new RejectedError(payload.message ?? 'The sandbox carrier refused the request.');
    return { status: answer.status, payload };
  };
}

function sandboxCalls(ask: CarrierRequest): CarrierCalls {
  return {
    // The carrier remembers the key itself: asked again, it answers the call it placed for it.
    async placeCall(request, attempt) {
      const { status, payload } = await ask('/calls', { ...request, idempotencyKey: attempt.key });
      if (status !== 201 || !payload.sid) throw new Error(`The sandbox carrier answered ${status} to a dial.`);
      return { providerCallId: payload.sid };
    },
    async endCall(providerCallId) {
      const { status } = await ask(`/calls/${providerCallId}/end`);
      // 404: the call is over and gone from the carrier's memory.
      if (status !== 200 && status !== 404) throw new Error(`The sandbox carrier answered ${status} to a hang-up.`);
    },
    async transferCall(providerCallId, request) {
      const { status, payload } = await ask(`/calls/${providerCallId}/transfer`, request);
      if (status === 404 || status === 409) throw new RejectedError(payload.message ?? 'The call is not live at the sandbox carrier.');
      if (status !== 200) throw new Error(`The sandbox carrier answered ${status} to a transfer.`);
    },
    async warmTransfer(providerCallId, request) {
      const { status, payload } = await ask(`/calls/${providerCallId}/warm-transfer`, request);
      if (status === 404 || status === 409) throw new RejectedError(payload.message ?? 'The call is not live at the sandbox carrier.');
      if (status !== 200 || !payload.sid) throw new Error(`The sandbox carrier answered ${status} to a warm transfer.`);
      return { supervisorCallId: payload.sid };
    },
    async updateCall(providerCallId, twiml) {
      const { status, payload } = await ask(`/calls/${providerCallId}/update`, { twiml });
      if (status === 404 || status === 409) throw new RejectedError(payload.message ?? 'The call is not held at the sandbox carrier.');
      if (status !== 200) throw new Error(`The sandbox carrier answered ${status} to a call update.`);
    },
    async callPrice(providerCallId) {
      const { status, payload } = await ask(`/calls/${providerCallId}`, undefined, 'GET');
      // The carrier keeps ended calls for a while, in one api replica's memory: one it forgot cannot be priced.
      if (status === 404) throw new RejectedError(`The sandbox carrier no longer knows call ${providerCallId}.`);
      if (status !== 200) throw new Error(`The sandbox carrier answered ${status} to a call's reading.`);
      return payload.endedAt === undefined ? undefined : payload.priceMicros;
    },
  };
}

function sandboxMessages(post: CarrierRequest): CarrierMessages {
  return {
    async sendSms(request) {
      const { status, payload } = await post('/messages', request);
      if (status !== 201 || !payload.sid || !payload.status) throw new Error(`The sandbox carrier answered ${status} to a message.`);
      return { providerMessageId: payload.sid, status: payload.status };
    },
    async sendWhatsApp(request) {
      const { status, payload } = await post('/whatsapp', request);
      if (status !== 201 || !payload.sid || !payload.status) throw new Error(`The sandbox carrier answered ${status} to a WhatsApp message.`);
      return { providerMessageId: payload.sid, status: payload.status };
    },
  };
}
