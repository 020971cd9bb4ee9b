import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import type { Config } from '../src/config.ts';
import { NotFoundError, RejectedError } from '../src/lib/errors.ts';
import { PHONE_STREAM_PATH, phoneStreamToken } from '../src/lib/media-control.ts';
import { providerErrors } from '../src/lib/metrics.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';
import { isSipCallSid } from '../src/providers/telephony/sip-trunks.ts';
import type { CarrierCalls, DialAttempt } from '../src/providers/telephony/types.ts';

export type DialOutcome = { dialed: true } | { dialed: false; reason: string };

/** The carrier has not priced the call yet: retried by the workflow's policy until it has. */
export class CarrierPricePendingError extends Error {
  override name = 'CarrierPricePendingError';
}

export interface PhoneCallActivityDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'media'>;
  providers: Pick<Providers, 'telephony' | 'secrets' | 'sipTrunks'>;
}

interface DialingRow {
  userId: number;
  clientPhoneNumber: string | null;
  assistantPhoneNumber: string | null;
  providerCallId: string | null;
  dialStartedAt: Date | null;
  dialAttemptKey: string | null;
}

/** The carrier side of a phone call: dialing it, dropping its line, and what the carrier charged for it. */
export function createPhoneCallActivities(deps: PhoneCallActivityDependencies) {
  const { knex, providers, config } = deps;
  const row = (callId: number) => knex('calls').where({ id: callId })
    .first<DialingRow | undefined>('userId', 'clientPhoneNumber', 'assistantPhoneNumber', 'providerCallId', 'dialStartedAt', 'dialAttemptKey');

  /**
   * Who carries a call: Parley's SIP gateway for a call from one of its owner's SIP trunks (or one the gateway
   * named), otherwise the deployment's carrier.
   */
  async function carrierOf(call: DialingRow): Promise<{ name: string; calls: CarrierCalls | undefined }> {
    const deployment = { name: providers.telephony.name, calls: providers.telephony.calls };
    if (call.providerCallId) return isSipCallSid(call.providerCallId) ? { name: 'sip', calls: providers.sipTrunks } : deployment;
    if (!call.assistantPhoneNumber) return deployment;
    const trunk = await knex('phone_numbers').where({ userId: call.userId, phoneNumber: call.assistantPhoneNumber, type: 'sip' }).first<{ id: number } | undefined>('id');
    return trunk ? { name: 'sip', calls: providers.sipTrunks } : deployment;
  }

  /**
   * The dial's key: the one an earlier try recorded, or a new one, written only if no try wrote one meanwhile
   * (two tries racing share the first's key). A dial begun before calls had keys keeps its start, and counts
   * as retried: its first try may have reached the carrier.
   */
  async function dialAttempt(callId: number, call: DialingRow): Promise<DialAttempt> {
    if (call.dialAttemptKey && call.dialStartedAt) return { key: call.dialAttemptKey, since: call.dialStartedAt, retried: true };
    const key = `dial-${callId}-${randomUUID()}`;
    await knex('calls').where({ id: callId }).whereNull('dialAttemptKey')
      .update({ dialAttemptKey: key, dialStartedAt: knex.raw('coalesce(dial_started_at, now())'), updatedAt: knex.fn.now() });
    const recorded = await row(callId);
    if (!recorded?.dialAttemptKey || !recorded.dialStartedAt) throw new NotFoundError(`Call ${callId} no longer exists.`);
    return { key: recorded.dialAttemptKey, since: recorded.dialStartedAt, retried: recorded.dialAttemptKey !== key || call.dialStartedAt !== null };
  }

  return {
    /**
     * Asks the carrier to place an outbound call, once. The dial's key is recorded on the call before the
     * first try and presented on every retry, and the carrier places at most one call per key (types.ts,
     * `placeCall`): a try whose answer was lost is found, not dialed again. A carrier that refuses the call
     * (a number it will not dial) is an outcome, not an error.
     */
    async dialCall({ callId, ringTimeoutSeconds }: { callId: number; ringTimeoutSeconds: number }): Promise<DialOutcome> {
      const call = await row(callId);
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      const carrier = await carrierOf(call);
      const carrierCalls = carrier.calls;
      const callbacks = `${config.publicUrl}/api/telephony/${providers.telephony.name}`;
      if (!carrierCalls) return { dialed: false, reason: `The ${carrier.name} carrier does not place calls.` };
      const { assistantPhoneNumber: from, clientPhoneNumber: to } = call;
      if (!from || !to) return { dialed: false, reason: 'The call has no number to dial from or to.' };
      if (call.providerCallId) return { dialed: true };
      const attempt = await dialAttempt(callId, call);
      try {
        const placed = await carrierCalls.placeCall({
          callId,
          from,
          to,
          stream: { url: `${config.media.publicUrl}${PHONE_STREAM_PATH}`, parameters: { callId: String(callId), token: phoneStreamToken(providers.secrets, callId) } },
          statusCallbackUrl: `${callbacks}/status?call_id=${callId}`,
          answeredByCallbackUrl: `${callbacks}/answered-by?call_id=${callId}`,
          ringTimeoutSeconds,
        }, attempt);
        // The status callback may have recorded it already; both write the same id.
        await knex('calls').where({ id: callId }).update({ providerCallId: placed.providerCallId, updatedAt: knex.fn.now() });
        return { dialed: true };
      } catch (error) {
        if (error instanceof RejectedError) return { dialed: false, reason: error.message };
        providerErrors.inc({ provider: 'carrier' });
        throw error;
      }
    },

    /** Drops the call's line at the carrier (stops the ringing, or hangs up); a call never dialed has none. */
    async endCarrierCall({ callId }: { callId: number }): Promise<void> {
      const call = await row(callId);
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      const carrierCalls = (await carrierOf(call)).calls;
      if (!call.providerCallId || !carrierCalls) return;
      try {
        await carrierCalls.endCall(call.providerCallId);
      } catch (error) {
        providerErrors.inc({ provider: 'carrier' });
        throw error;
      }
    },

    /**
     * Records what the carrier charged for the call (`carrier_cost`), for the record: the owner pays the plan's
     * price, which covers it (docs/decisions.md, "What a phone call cost"). A price the carrier has not given yet
     * is an error the workflow retries. A call the carrier never carried costs nothing.
     */
    async recordCarrierCost({ callId }: { callId: number }): Promise<{ carrierCostMicros: number }> {
      const call = await row(callId);
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      const carrier = await carrierOf(call);
      if (!call.providerCallId || !carrier.calls) return { carrierCostMicros: 0 };
      const price = await carrier.calls.callPrice(call.providerCallId);
      if (price === undefined) throw new CarrierPricePendingError(`The ${carrier.name} carrier has not priced call ${callId} yet.`);
      await knex('calls').where({ id: callId }).update({ carrierCostMicros: price, updatedAt: knex.fn.now() });
      return { carrierCostMicros: price };
    },
  };
}
