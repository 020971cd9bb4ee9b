import type { Knex } from 'knex';
import type { Logger } from '../logger.ts';
import { advanceSupervisorTransfer, SUPERVISOR_TRANSFER_STATUSES, type SupervisorTransferStatus } from '../calls/transfers.ts';
import { recordTransferOutcome } from '../resources/carrier-callbacks/transfers.ts';
import { recordCarrierStatus } from '../resources/carrier-callbacks/service.ts';
import type { TemporalClient } from '../temporal/client.ts';
import { finalCarrierStatuses, type CarrierCallStatus } from '../temporal/shared.ts';

export interface SipStatusDeps {
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
}

/** A call's status as the gateway tells it (src/sip/gateway/calls.go statusNotice), in Twilio's words. */
export interface StatusNotice {
  callSid: string;
  status: string;
  code?: number;
  firstSoundMs?: number;
}

interface SipCallRow {
  callSid: string;
  callId: number;
  answeredAt: Date | null;
}

/**
 * What the gateway says of one of its calls goes where a carrier's status callback goes (`recordCarrierStatus`):
 * the call shows `ringing`, and its workflow hears of the answer and of the end. The gateway's own record of the
 * call notes both, so a replica that restarts knows which calls its gateway still held.
 */
export async function recordGatewayStatus(deps: SipStatusDeps, notice: StatusNotice, onFirstSound?: (ms: number) => void): Promise<void> {
  const { knex, logger } = deps;
  const row = await knex('sip_calls').where({ callSid: notice.callSid }).first<SipCallRow | undefined>('callSid', 'callId', 'answeredAt');
  if (!row) {
    logger.info({ callSid: notice.callSid, status: notice.status }, 'the SIP gateway spoke of a call Parley does not know');
    return;
  }
  if (notice.status === 'in-progress') await knex('sip_calls').where({ callSid: notice.callSid }).update({ answeredAt: knex.fn.now() });
  if ((finalCarrierStatuses as readonly string[]).includes(notice.status)) {
    await knex('sip_calls').where({ callSid: notice.callSid }).whereNull('endedAt').update({ endedAt: knex.fn.now() });
  }
  if (notice.firstSoundMs !== undefined) onFirstSound?.(notice.firstSoundMs);
  if (notice.code !== undefined) logger.info({ callId: Number(row.callId), callSid: notice.callSid, status: notice.status, code: notice.code }, 'a SIP call ended unanswered');
  await recordCarrierStatus(deps, { callId: Number(row.callId), providerCallId: notice.callSid, status: notice.status, timestamp: undefined });
}

/** The outcome of a transfer (a REFER the far end accepted, or the second leg the gateway dialed), recorded as a carrier's `<Dial action>` outcome is. */
export async function recordGatewayTransfer(deps: SipStatusDeps, notice: { callSid: string; status: string; duration?: number }): Promise<void> {
  const row = await deps.knex('sip_calls').where({ callSid: notice.callSid }).first<SipCallRow | undefined>('callSid', 'callId');
  if (!row) return;
  await recordTransferOutcome(deps, { callId: Number(row.callId), dialStatus: notice.status, duration: notice.duration });
}

/** What the gateway tells of a warm transfer it runs (src/sip/gateway/warm.go): `connected`, then how it ended. */
export interface WarmTransferNotice {
  callSid: string;
  status: string;
  duration?: number;
  error?: string;
}

/**
 * A step of a warm transfer the gateway runs, recorded on the call's transfer as a Twilio supervisor's status
 * callback is (`advanceSupervisorTransfer`): the gateway has already told the caller when nobody took the call.
 */
export async function recordGatewayWarmTransfer(deps: SipStatusDeps, notice: WarmTransferNotice): Promise<void> {
  const row = await deps.knex('sip_calls').where({ callSid: notice.callSid }).first<SipCallRow | undefined>('callSid', 'callId');
  if (!row) return;
  const status = SUPERVISOR_TRANSFER_STATUSES.find((known) => known !== 'requested' && known === notice.status) as Exclude<SupervisorTransferStatus, 'requested'> | undefined;
  const advanced = await advanceSupervisorTransfer(deps.knex, Number(row.callId), {
    status: status ?? 'failed',
    ...(notice.duration === undefined ? {} : { duration: notice.duration }),
    ...(notice.error === undefined ? {} : { error: notice.error }),
  });
  if (!advanced) deps.logger.info({ callId: Number(row.callId), status: notice.status }, 'a warm transfer step for a call with no warm transfer running');
}

/**
 * Ends, as far as Parley is concerned, every call the gateway of this replica held when it died (or when the
 * whole process did): an answered call is over (`completed`), one still ringing or being answered failed. The
 * workflows then end them as a carrier's dropped line ends a call.
 */
export async function endCallsOfGateway(deps: SipStatusDeps, gatewayUrl: string): Promise<number> {
  const rows = await deps.knex('sip_calls').where({ gatewayUrl }).whereNull('endedAt').select<SipCallRow[]>('callSid', 'callId', 'answeredAt');
  for (const row of rows) {
    const status: CarrierCallStatus = row.answeredAt ? 'completed' : 'failed';
    await recordGatewayStatus(deps, { callSid: row.callSid, status });
  }
  if (rows.length > 0) deps.logger.warn({ calls: rows.length }, 'ended the calls a SIP gateway held when it stopped');
  return rows.length;
}
