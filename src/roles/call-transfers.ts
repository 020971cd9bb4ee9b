import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { dialingCountries } from '../calls/dialing-countries.ts';
import {
  addTransfer, advanceSupervisorTransfer, callToTransfer, callToWarmTransfer, noteSupervisorCall, settlePhoneTransfer, supervisorCallingNumber,
} from '../calls/transfers.ts';
import { RejectedError } from '../lib/errors.ts';
import { isSipCallSid } from '../providers/telephony/sip-trunks.ts';
import type { CarrierCalls, TelephonyProvider } from '../providers/telephony/types.ts';
import { roomFor, supervisorTwiml } from '../resources/carrier-callbacks/warm-transfers.ts';
import type { PhoneLine } from '../voice/line.ts';
import type { AssistantSetup, CallSetup } from '../voice/run.ts';

/** A SIP URI, as a `custom_sip` supervisor is given. */
const SIP_URI = /^sips?:\S+$/i;

/** How long the number a call is transferred to rings before the transfer gives up as `no-answer`. */
const TRANSFER_RING_SECONDS = 30;

export interface PhoneLineDeps {
  knex: Knex;
  telephony: TelephonyProvider;
  /** The calls of SIP trunks (Parley's SIP gateway): a call the gateway carries is transferred by it. */
  sipTrunks?: CarrierCalls;
  /** PUBLIC_URL: where the carrier posts the transfer's outcome and asks for its whisper. */
  publicUrl: string;
}

/**
 * A phone call's carrier as its session sees it: a number is transferred to under the account's dialing rules
 * (a valid number in a country of its own numbers, as `make_call` dials), and the transfer is recorded on the
 * call before the carrier is asked, its outcome coming later through the carrier's callback. A warm transfer
 * calls the supervisor from the tool's outbound number (still the account's), showing the caller ID its mode
 * says; a supervisor at a SIP URI (`custom_sip`) is reached only on a call through a SIP trunk, whose gateway
 * dials it.
 */
export function phoneLine(deps: PhoneLineDeps, call: { id: number; userId: number }): PhoneLine {
  const { knex, telephony } = deps;
  const checkTransfer = async (phoneNumber: string) => {
    // A SIP URI (a `custom_sip` supervisor) is dialed by Parley's SIP gateway through the call's trunk.
    if (SIP_URI.test(phoneNumber)) {
      if (!deps.sipTrunks || !isSipCallSid((await callToTransfer(knex, call.id))?.providerCallId)) {
        throw new RejectedError('A SIP address can only be called from a call that came through a SIP trunk.');
      }
      return;
    }
    const parsed = parsePhoneNumberFromString(phoneNumber);
    if (!parsed?.isValid() || parsed.number !== phoneNumber) throw new RejectedError(`${phoneNumber} is not a valid phone number.`);
    const allowed = await dialingCountries(knex, call.userId);
    if (!parsed.country || !allowed.includes(parsed.country)) {
      throw new RejectedError(`Calls to ${parsed.country ?? 'these'} numbers are not allowed for this account.`);
    }
  };
  return {
    checkTransfer,
    async transfer({ to, whisper }) {
      await checkTransfer(to);
      const row = await callToTransfer(knex, call.id);
      const carrier = isSipCallSid(row?.providerCallId) ? deps.sipTrunks : telephony.calls;
      if (!row?.providerCallId || !row.assistantPhoneNumber || !carrier) throw new RejectedError('This call cannot be transferred: the carrier has not named it yet.');
      await addTransfer(knex, call.id, {
        type: 'phone', to, warm: whisper !== undefined, message: whisper ?? null, status: 'requested', requested_at: new Date().toISOString(), ended_at: null, duration: null, error: null,
      });
      const callbacks = `${deps.publicUrl}/api/telephony/${telephony.name}`;
      try {
        await carrier.transferCall(row.providerCallId, {
          to,
          callerId: row.assistantPhoneNumber,
          ...(whisper === undefined ? {} : { whisperUrl: `${callbacks}/whisper?call_id=${call.id}` }),
          outcomeUrl: `${callbacks}/transfer?call_id=${call.id}`,
          ringTimeoutSeconds: TRANSFER_RING_SECONDS,
        });
      } catch (error) {
        await settlePhoneTransfer(knex, call.id, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
    },
    async warmTransfer({ transfer, briefing, summarySource, language }) {
      await checkTransfer(transfer.supervisorPhone);
      // The supervisor's phone rings as long as the assistant's calls ring (`ringing_time`).
      const row = await callToWarmTransfer(knex, call.id);
      const outbound = await supervisorCallingNumber(knex, call.userId, transfer.outboundPhoneId);
      const carrier = isSipCallSid(row?.providerCallId) ? deps.sipTrunks : telephony.calls;
      if (!carrier?.warmTransfer) throw new RejectedError('This carrier cannot hold a caller for a supervisor.');
      if (!row?.providerCallId) throw new RejectedError('This call cannot be transferred: the carrier has not named it yet.');
      if (!outbound) throw new RejectedError('The number to call the supervisor from is no longer on this account.');
      const callerId = transfer.callerIdMode === 'customer_number' ? row.clientPhoneNumber ?? outbound
        : transfer.callerIdMode === 'custom' ? transfer.customCallerId ?? outbound : outbound;
      await addTransfer(knex, call.id, {
        type: 'supervisor', to: transfer.supervisorPhone, caller_id: callerId, briefing, summary_source: summarySource, connected_message: transfer.connectedMessage,
        hold_music_volume: transfer.holdMusicVolume ?? null, status: 'requested', requested_at: new Date().toISOString(), connected_at: null, ended_at: null, duration: null, error: null, supervisor_call_id: null,
      });
      const callbacks = `${deps.publicUrl}/api/telephony/${telephony.name}`;
      let supervisorCallId: string;
      try {
        ({ supervisorCallId } = await carrier.warmTransfer(row.providerCallId, {
          to: transfer.supervisorPhone,
          callerId,
          room: roomFor(call.id),
          holdMusicUrl: transfer.holdMusicVolume === undefined ? undefined : `${callbacks}/hold-music?volume=${transfer.holdMusicVolume}`,
          supervisorTwiml: supervisorTwiml(briefing, `${callbacks}/warm-transfer/bridge?call_id=${call.id}`, language),
          supervisorStatusUrl: `${callbacks}/warm-transfer/status?call_id=${call.id}`,
          ringTimeoutSeconds: row.ringingTime ?? TRANSFER_RING_SECONDS,
          briefing,
          connectedMessage: transfer.connectedMessage,
          holdMusicVolume: transfer.holdMusicVolume,
        }));
      } catch (error) {
        await advanceSupervisorTransfer(knex, call.id, { status: 'failed', error: error instanceof Error ? error.message : String(error) });
        throw error;
      }
      await noteSupervisorCall(knex, call.id, supervisorCallId);
    },
  };
}

/**
 * The owner's other assistants as a call's session sees them: one takes the call over when it is still the
 * owner's and runs on the speech pipeline (a speech-to-speech assistant cannot take over a pipeline call), and
 * the handover is recorded on the call.
 */
export function assistantLine(
  deps: { knex: Knex; load: (assistantId: number) => Promise<AssistantSetup | undefined> },
  call: { id: number; userId: number },
): NonNullable<CallSetup['assistants']> {
  const ready = async (assistantId: number) => {
    const next = await deps.load(assistantId);
    if (!next || next.profile.userId !== call.userId) throw new RejectedError('That assistant is not available any more.');
    if (next.settings.mode !== 'pipeline') {
      throw new RejectedError(`The assistant "${next.profile.name}" answers with a speech-to-speech model, which cannot take over this call.`);
    }
    return next;
  };
  return {
    async check(assistantId) {
      await ready(assistantId);
    },
    async load(assistantId) {
      const next = await ready(assistantId);
      await addTransfer(deps.knex, call.id, { type: 'assistant', assistant_id: assistantId, assistant_name: next.profile.name, requested_at: new Date().toISOString() });
      return next;
    },
  };
}
