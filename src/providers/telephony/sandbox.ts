import { isUniqueViolation } from '../../db/errors.ts';
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import { RejectedError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { drawNumbers, offerOf, REFUSED_DIGITS } from './sandbox-inventory.ts';
import type { CarrierCalls, TelephonyProvider } from './types.ts';

/**
 * The embedded carrier: it offers numbers of its inventory (sandbox-inventory.ts), provisions them into
 * its own table (a restart changes nothing) and takes them back. A number it holds for someone is not
 * offered; released, it can be offered again.
 */
export function createSandboxTelephony(options: { knex: () => Knex; secrets: () => SecretBox; carrierUrl: () => string }): TelephonyProvider {
  const { knex } = options;
  // Derived from the app key, which every process of a deployment shares.
  const token = () => sandboxCarrierToken(options.secrets());
  return {
    name: 'sandbox',
    callbackToken: token,
    calls: sandboxCalls(() => `${options.carrierUrl()}/api/sandbox/carrier/calls`, token),

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
      const earlier = await db('sandbox_phone_numbers').where({ idempotencyKey }).first<{ id: string; releasedAt: Date | null } | undefined>('id', 'releasedAt');
      if (earlier && !earlier.releasedAt) return { providerNumberId: earlier.id };
      if (earlier) throw new RejectedError(`The purchase ${idempotencyKey} already released its number.`);
      if (phoneNumber.includes(REFUSED_DIGITS)) throw new RejectedError(`The sandbox carrier declines numbers with ${REFUSED_DIGITS} in them (its number that fails on purpose).`);
      if (!offerOf(phoneNumber)) throw new RejectedError(`The sandbox carrier does not offer ${phoneNumber}.`);
      const id = `PNsbx${randomBytes(14).toString('hex')}`;
      try {
        await db('sandbox_phone_numbers').insert({ id, phoneNumber, idempotencyKey });
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

/**
 * Calls through the sandbox carrier's API (resources/sandbox-carrier), served by the api role at PUBLIC_URL:
 * any process dials as it would dial Twilio. A request the carrier refuses (400) is the caller's.
 */
function sandboxCalls(callsUrl: () => string, token: () => string): CarrierCalls {
  const post = async (url: string, body?: unknown) => {
    const answer = await fetch(url, {
      method: 'POST',
      headers: { 'authorization': `Bearer ${token()}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    const payload = await answer.json().catch(() => ({})) as { sid?: string; message?: string };
    if (answer.status === 400) throw new RejectedError(payload.message ?? 'The sandbox carrier refused the call.');
    return { status: answer.status, payload };
  };
  return {
    async placeCall(request) {
      const { status, payload } = await post(callsUrl(), request);
      if (status !== 201 || !payload.sid) throw new Error(`The sandbox carrier answered ${status} to a dial.`);
      return { providerCallId: payload.sid };
    },
    async endCall(providerCallId) {
      const { status } = await post(`${callsUrl()}/${providerCallId}/end`);
      // 404: the call is over and gone from the carrier's memory.
      if (status !== 200 && status !== 404) throw new Error(`The sandbox carrier answered ${status} to a hang-up.`);
    },
    async transferCall(providerCallId, request) {
      const { status, payload } = await post(`${callsUrl()}/${providerCallId}/transfer`, request);
      if (status === 404 || status === 409) throw new RejectedError(payload.message ?? 'The call is not live at the sandbox carrier.');
      if (status !== 200) throw new Error(`The sandbox carrier answered ${status} to a transfer.`);
    },
  };
}
