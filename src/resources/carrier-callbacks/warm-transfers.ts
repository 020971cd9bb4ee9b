/**
 * Parley's side of a warm transfer to a supervisor (`warm_call_transfer`) while the carrier runs it: the
 * supervisor, briefed, is joined to the conference the caller waits in, the caller first hearing the connected
 * message; a supervisor who never takes the call (busy, no answer, failed, hung up during the briefing) leaves
 * the caller an apology and the end of the call instead of hold music for ever. Each step is recorded on the
 * call's transfer.
 */
import type { Knex } from 'knex';
import { hasLanguagePack, iso2Of, languagePack } from '../../lib/languages/index.ts';
import { advanceSupervisorTransfer, currentSupervisorTransfer, type SupervisorTransferStatus } from '../../calls/transfers.ts';
import type { Logger } from '../../logger.ts';
import type { TelephonyProvider } from '../../providers/telephony/types.ts';
import { escape, twiml } from './inbound.ts';
import { TRANSFER_FAILED } from './transfers.ts';

/** The conference of a call's warm transfer: one per call, as the call leaves Parley's engine with it. */
export const roomFor = (callId: number) => `parley-call-${callId}`;

/**
 * What the supervisor hears on answering: the briefing, then Parley is asked to connect them (`bridgeUrl`).
 * The briefing is in the call's language (the model writes the summary in it) and is read in it: the call's
 * locale (`es-MX`), or a bare code's usual one where Parley has the language's pack (`de` is `de-DE`); English
 * and a bare code it cannot place in the carrier's default.
 */
export function supervisorTwiml(briefing: string, bridgeUrl: string, language?: string): string {
  const locale = !language || iso2Of(language) === 'en' ? undefined
    : language.includes('-') ? language : hasLanguagePack(language) ? languagePack(language).locale : undefined;
  const say = locale ? `<Say language="${escape(locale)}">` : '<Say>';
  return twiml(`${say}${escape(briefing)}</Say><Redirect method="POST">${escape(bridgeUrl)}</Redirect>`);
}

/**
 * Joins a call to the room, hearing `say` first: whoever of the two leaves ends it for the other, and it
 * starts as either enters (the other already waits, or comes seconds later).
 */
export function joinRoomTwiml(room: string, say?: string): string {
  const words = say?.trim() ? `<Say>${escape(say.trim())}</Say>` : '';
  return twiml(`${words}<Dial><Conference startConferenceOnEnter="true" endConferenceOnExit="true" beep="false">${escape(room)}</Conference></Dial>`);
}

const CALLER_GONE = 'The caller hung up before the supervisor was connected.';

/** What the supervisor hears when the caller hung up while on hold. */
const CALLER_GONE_TWIML = twiml(`<Say>${escape('Sorry, the caller has already hung up. Goodbye.')}</Say><Hangup/>`);

/** What the caller hears when the supervisor did not take the call, before the call ends. */
export const GIVE_UP_TWIML = twiml(`<Say>${escape(TRANSFER_FAILED)}</Say><Hangup/>`);

interface WarmTransferDeps {
  knex: Knex;
  logger: Logger;
  telephony: TelephonyProvider;
}

/** The caller's call at the carrier. */
async function callerSid(knex: Knex, callId: number): Promise<string | undefined> {
  const row = await knex('calls').where({ id: callId }).first<{ providerCallId: string | null } | undefined>('providerCallId');
  return row?.providerCallId ?? undefined;
}

/**
 * The supervisor has heard the briefing (the carrier follows its `<Redirect>`): the caller is taken off hold
 * to hear the connected message and join the room, and the supervisor joins it. A caller who hung up
 * meanwhile leaves the supervisor a word of it instead.
 */
export async function bridgeSupervisor(deps: WarmTransferDeps, callId: number): Promise<string> {
  const transfer = await currentSupervisorTransfer(deps.knex, callId);
  const caller = await callerSid(deps.knex, callId);
  const carrier = deps.telephony.calls;
  if (transfer?.status !== 'requested' || !caller || !carrier?.updateCall) return CALLER_GONE_TWIML;
  try {
    await carrier.updateCall(caller, joinRoomTwiml(roomFor(callId), transfer.connected_message));
  } catch (error) {
    // A caller who hung up on hold is a call the carrier has over: the supervisor is told.
    deps.logger.info({ err: error, callId }, 'the held caller could not be connected to the supervisor');
    await advanceSupervisorTransfer(deps.knex, callId, { status: 'canceled', error: CALLER_GONE });
    return CALLER_GONE_TWIML;
  }
  await advanceSupervisorTransfer(deps.knex, callId, { status: 'connected' });
  return joinRoomTwiml(roomFor(callId));
}

/** The supervisor's call ended without the supervisor taking the caller, in Twilio's `CallStatus` words. */
const NOT_TAKEN = ['busy', 'no-answer', 'failed', 'canceled'] as const satisfies readonly SupervisorTransferStatus[];

/**
 * A status change of the supervisor's call. Once it is over: a bridged transfer is `completed` with the
 * call's seconds; otherwise the supervisor never took the caller (busy, no answer, failed, or hung up before
 * being connected), which is recorded, and the held caller hears an apology and the call ends.
 */
export async function recordSupervisorStatus(deps: WarmTransferDeps, report: { callId: number; status: string; duration: number | undefined }): Promise<void> {
  if (report.status !== 'completed' && !NOT_TAKEN.some((status) => status === report.status)) return;
  const transfer = await currentSupervisorTransfer(deps.knex, report.callId);
  if (!transfer) return;
  if (transfer.status === 'connected') {
    await advanceSupervisorTransfer(deps.knex, report.callId, { status: 'completed', ...(report.duration === undefined ? {} : { duration: report.duration }) });
    return;
  }
  const outcome = NOT_TAKEN.find((status) => status === report.status);
  await advanceSupervisorTransfer(deps.knex, report.callId, {
    status: outcome ?? 'failed',
    ...(report.duration === undefined ? {} : { duration: report.duration }),
    ...(outcome ? {} : { error: 'The supervisor hung up before being connected.' }),
  });
  const caller = await callerSid(deps.knex, report.callId);
  const carrier = deps.telephony.calls;
  if (!caller || !carrier?.updateCall) return;
  try {
    await carrier.updateCall(caller, GIVE_UP_TWIML);
  } catch (error) {
    deps.logger.info({ err: error, callId: report.callId }, 'the held caller was gone before hearing that the supervisor did not answer');
  }
}

/**
 * A status change of a call at the carrier (its number's callback): a caller who hangs up while held for a
 * supervisor cancels the transfer, and the supervisor's call if it still rings (a supervisor who already
 * answered hears that the caller has gone when the briefing ends).
 */
export async function callerLeftHold(deps: WarmTransferDeps, report: { callId: number | undefined; providerCallId: string; status: string }): Promise<void> {
  if (report.status !== 'completed' && !NOT_TAKEN.some((status) => status === report.status)) return;
  const row = await deps.knex('calls').where(report.callId === undefined ? { providerCallId: report.providerCallId } : { id: report.callId })
    .first<{ id: number } | undefined>('id');
  const transfer = row ? await currentSupervisorTransfer(deps.knex, Number(row.id)) : undefined;
  if (!row || transfer?.status !== 'requested') return;
  await advanceSupervisorTransfer(deps.knex, Number(row.id), { status: 'canceled', error: CALLER_GONE });
  if (!transfer.supervisor_call_id || !deps.telephony.calls) return;
  try {
    await deps.telephony.calls.endCall(transfer.supervisor_call_id);
  } catch (error) {
    deps.logger.warn({ err: error, callId: row.id }, 'the supervisor\'s call could not be called off after the caller hung up');
  }
}
