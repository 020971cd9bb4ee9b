import type { Knex } from 'knex';
import type { Config } from '../src/config.ts';
import { NotFoundError, RejectedError } from '../src/lib/errors.ts';
import { PHONE_STREAM_PATH, phoneStreamToken } from '../src/lib/media-control.ts';
import type { Logger } from '../src/logger.ts';
import type { Providers } from '../src/providers/index.ts';

export type DialOutcome = { dialed: true } | { dialed: false; reason: string };

/** How long a retried dial waits for the carrier's word on an earlier try before it dials again. */
const EARLIER_DIAL_WAIT_MS = 5000;

/** The carrier has not priced the call yet: retried by the workflow's policy until it has. */
export class CarrierPricePendingError extends Error {
  override name = 'CarrierPricePendingError';
}

export interface PhoneCallActivityDependencies {
  knex: Knex;
  logger: Logger;
  config: Pick<Config, 'publicUrl' | 'media'>;
  providers: Pick<Providers, 'telephony' | 'secrets'>;
}

interface DialingRow {
  clientPhoneNumber: string | null;
  assistantPhoneNumber: string | null;
  providerCallId: string | null;
  dialStartedAt: Date | null;
}

/** The carrier side of a phone call: dialing it, dropping its line, and what the carrier charged for it. */
export function createPhoneCallActivities(deps: PhoneCallActivityDependencies) {
  const { knex, providers, config } = deps;
  const row = (callId: number) => knex('calls').where({ id: callId })
    .first<DialingRow | undefined>('clientPhoneNumber', 'assistantPhoneNumber', 'providerCallId', 'dialStartedAt');

  return {
    /**
     * Asks the carrier to place an outbound call, once. A try whose answer was lost has reached the carrier
     * if the carrier's first status callback (which records its call id) follows within a few seconds; only
     * without one is the call dialed again. A carrier that refuses the call (a number it will not dial) is
     * an outcome, not an error.
     */
    async dialCall({ callId, ringTimeoutSeconds }: { callId: number; ringTimeoutSeconds: number }): Promise<DialOutcome> {
      let call = await row(callId);
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      const carrierCalls = providers.telephony.calls;
      const callbacks = `${config.publicUrl}/api/telephony/${providers.telephony.name}`;
      if (!carrierCalls) return { dialed: false, reason: `The ${providers.telephony.name} carrier does not place calls.` };
      const { assistantPhoneNumber: from, clientPhoneNumber: to } = call;
      if (!from || !to) return { dialed: false, reason: 'The call has no number to dial from or to.' };
      for (const until = Date.now() + EARLIER_DIAL_WAIT_MS; call?.dialStartedAt && !call.providerCallId && Date.now() < until;) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        call = await row(callId);
      }
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      if (call.providerCallId) return { dialed: true };
      await knex('calls').where({ id: callId }).update({ dialStartedAt: knex.fn.now(), updatedAt: knex.fn.now() });
      try {
        const placed = await carrierCalls.placeCall({
          from,
          to,
          stream: { url: `${config.media.publicUrl}${PHONE_STREAM_PATH}`, parameters: { callId: String(callId), token: phoneStreamToken(providers.secrets, callId) } },
          statusCallbackUrl: `${callbacks}/status?call_id=${callId}`,
          answeredByCallbackUrl: `${callbacks}/answered-by?call_id=${callId}`,
          ringTimeoutSeconds,
        });
        // The status callback may have recorded it already; both write the same id.
        await knex('calls').where({ id: callId }).update({ providerCallId: placed.providerCallId, updatedAt: knex.fn.now() });
        return { dialed: true };
      } catch (error) {
        if (error instanceof RejectedError) return { dialed: false, reason: error.message };
        throw error;
      }
    },

    /** Drops the call's line at the carrier (stops the ringing, or hangs up); a call never dialed has none. */
    async endCarrierCall({ callId }: { callId: number }): Promise<void> {
      const call = await row(callId);
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      if (call.providerCallId && providers.telephony.calls) await providers.telephony.calls.endCall(call.providerCallId);
    },

    /**
     * Records what the carrier charged for the call (`carrier_cost`), for the record: the owner pays the plan's
     * price, which covers it (docs/decisions.md, "What a phone call cost"). A price the carrier has not given yet
     * is an error the workflow retries. A call the carrier never carried costs nothing.
     */
    async recordCarrierCost({ callId }: { callId: number }): Promise<{ carrierCostMicros: number }> {
      const call = await row(callId);
      if (!call) throw new NotFoundError(`Call ${callId} no longer exists.`);
      const carrierCalls = providers.telephony.calls;
      if (!call.providerCallId || !carrierCalls) return { carrierCostMicros: 0 };
      const price = await carrierCalls.callPrice(call.providerCallId);
      if (price === undefined) throw new CarrierPricePendingError(`The ${providers.telephony.name} carrier has not priced call ${callId} yet.`);
      await knex('calls').where({ id: callId }).update({ carrierCostMicros: price, updatedAt: knex.fn.now() });
      return { carrierCostMicros: price };
    },
  };
}
