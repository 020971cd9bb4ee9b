import type { Knex } from 'knex';
import { PHONE_TRANSFER_STATUSES, settlePhoneTransfer, transferWhisper, type PhoneTransferStatus } from '../../calls/transfers.ts';
import type { Logger } from '../../logger.ts';
import { escape, twiml } from './inbound.ts';

/** What the caller hears when the number a call was transferred to did not take it. */
export const TRANSFER_FAILED = 'Sorry, nobody could take your call right now. Please try again later. Goodbye.';

/**
 * The outcome of a call's transfer to a number, as the carrier posts its `<Dial action>` when the bridged call
 * ends (or never began): recorded on the call's transfer, and answered with what the caller hears then: a
 * short apology when nobody took the call, nothing more when someone did. Outcomes Parley does not know are
 * recorded as `failed`.
 */
export async function recordTransferOutcome(
  deps: { knex: Knex; logger: Logger }, report: { callId: number; dialStatus: string; duration: number | undefined },
): Promise<string> {
  const known = PHONE_TRANSFER_STATUSES.find((status) => status !== 'requested' && status === report.dialStatus) as Exclude<PhoneTransferStatus, 'requested'> | undefined;
  const status = known ?? 'failed';
  const settled = await settlePhoneTransfer(deps.knex, report.callId, { status, ...(report.duration === undefined ? {} : { duration: report.duration }) });
  if (!settled) deps.logger.info({ callId: report.callId, status: report.dialStatus }, 'a transfer outcome for a call with no transfer waiting for one');
  return status === 'completed' || status === 'answered' ? twiml('<Hangup/>') : twiml(`<Say>${escape(TRANSFER_FAILED)}</Say><Hangup/>`);
}

/** What the person answering a warm transfer hears before the caller is connected (TwiML); nothing for a cold one. */
export async function whisperTwiml(knex: Knex, callId: number): Promise<string> {
  const message = await transferWhisper(knex, callId);
  return message ? twiml(`<Say>${escape(message)}</Say>`) : twiml('');
}
