import type { Knex } from 'knex';
import type { Logger } from '../../logger.ts';
import { signalAnsweredBy, signalCarrierStatus } from '../../temporal/call-signals.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { finalCarrierStatuses, type AnsweredBySignal, type CarrierCallStatus } from '../../temporal/shared.ts';

const carrierStatuses: readonly CarrierCallStatus[] = ['queued', 'initiated', 'ringing', 'in-progress', 'completed', 'busy', 'no-answer', 'failed', 'canceled'];
/** What the call's workflow acts on: the callee answering, and the line's end. The rest only shows on the call's row. */
const statusesTheWorkflowActsOn: readonly CarrierCallStatus[] = ['in-progress', ...finalCarrierStatuses];

export interface CarrierStatusReport {
  /** The call as Parley named it to the carrier; undefined for a number's own callbacks (inbound calls). */
  callId: number | undefined;
  /** The carrier's id of the call (Twilio's CallSid). */
  providerCallId: string;
  status: string;
  /** When the carrier saw it (Twilio's `Timestamp`, RFC 2822); the time it arrived when absent. */
  timestamp: string | undefined;
}

/**
 * A carrier's word on one of the calls Parley dialled: the carrier's call id is recorded on the call (a
 * retried dial looks for it before dialing again), a ringing call shows `ringing`, and the call's workflow is
 * told of an answer or an end (each signal is a workflow task: the others would change nothing there). A status
 * Parley does not know, or a call that is gone, is logged and dropped.
 */
export async function recordCarrierStatus(deps: { knex: Knex; temporal: TemporalClient; logger: Logger }, report: CarrierStatusReport): Promise<void> {
  const { knex, logger } = deps;
  const status = carrierStatuses.find((known) => known === report.status);
  if (!status) {
    logger.warn({ callId: report.callId, status: report.status }, 'a carrier status Parley does not know: dropped');
    return;
  }
  const found = await knex('calls')
    .where(report.callId === undefined ? { providerCallId: report.providerCallId } : { id: report.callId })
    .first<{ id: number; providerCallId: string | null } | undefined>('id', 'providerCallId');
  if (!found) {
    logger.info({ callId: report.callId, providerCallId: report.providerCallId, status }, 'a carrier status for a call that is gone');
    return;
  }
  const callId = Number(found.id);
  if (found.providerCallId === null) await knex('calls').where({ id: callId }).whereNull('providerCallId').update({ providerCallId: report.providerCallId, updatedAt: knex.fn.now() });
  if (status === 'ringing') await knex('calls').where({ id: callId, status: 'initiated' }).update({ status: 'ringing', updatedAt: knex.fn.now() });
  if (!statusesTheWorkflowActsOn.includes(status)) return;
  const parsed = report.timestamp ? Date.parse(report.timestamp) : Number.NaN;
  await signalCarrierStatus(deps.temporal, callId, { status, at: new Date(Number.isNaN(parsed) ? Date.now() : parsed).toISOString() }, logger);
}

/**
 * Twilio's AnsweredBy as the contract's `answered_by`: any of its machine verdicts (at the start of the greeting,
 * or at its end by a beep, silence or otherwise) is a machine; a fax, or no verdict, is unknown.
 */
const carrierVerdicts: Record<string, AnsweredBySignal['answeredBy']> = {
  human: 'human',
  machine_start: 'machine',
  machine_end_beep: 'machine',
  machine_end_silence: 'machine',
  machine_end_other: 'machine',
  fax: 'unknown',
  unknown: 'unknown',
};

/**
 * The carrier's answering-machine detection on a call Parley dialled: told to the call's workflow, which
 * prefers it to the voice engine's own verdict. A verdict Parley does not know, for a call that is gone or for
 * another call of the carrier's, is logged and dropped.
 */
export async function recordCarrierVerdict(
  deps: { knex: Knex; temporal: TemporalClient; logger: Logger },
  report: { callId: number; providerCallId: string; answeredBy: string },
): Promise<void> {
  const { knex, logger } = deps;
  const answeredBy = carrierVerdicts[report.answeredBy];
  const found = await knex('calls').where({ id: report.callId }).first<{ providerCallId: string | null } | undefined>('providerCallId');
  if (!answeredBy || !found || (found.providerCallId !== null && found.providerCallId !== report.providerCallId)) {
    logger.warn({ callId: report.callId, providerCallId: report.providerCallId, answeredBy: report.answeredBy }, 'a carrier\'s answering-machine verdict Parley cannot use: dropped');
    return;
  }
  await signalAnsweredBy(deps.temporal, report.callId, { answeredBy, source: 'carrier', at: new Date().toISOString() }, logger);
}
