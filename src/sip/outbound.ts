import type { Knex } from 'knex';
import type { SipConfig } from '../config.ts';
import { RejectedError } from '../lib/errors.ts';
import type { SecretBox } from '../lib/secrets.ts';
import type { Logger } from '../logger.ts';
import { newSipCallSid } from '../providers/telephony/sip-trunks.ts';
import { TRANSFER_FAILED } from '../resources/carrier-callbacks/transfers.ts';
import { HELD_STATUSES } from '../resources/phone-numbers/model.ts';
import { SIP_PASSWORD_PURPOSE } from '../resources/sip-trunks/service.ts';
import { formatForTrunk, type CallingFormat } from './calling-format.ts';
import type { GatewayProcess } from './gateway-process.ts';
import { holdMusicMulaw, MAX_SPOKEN_CHARS } from './line-audio.ts';

export interface SipOutboundDeps {
  knex: Knex;
  secrets: SecretBox;
  logger: Logger;
  gateway: GatewayProcess;
  sip: Pick<SipConfig, 'trunkPort'>;
  /** This replica's control URL, recorded on the calls its gateway holds. */
  gatewayUrl: () => string;
}

/** A call to place through a trunk, as the trunk carrier adapter sends it (providers/telephony/sip-trunks.ts). */
export interface SipDialRequest {
  callId: number;
  /** The trunk's number the call is made from, and the callee (E.164). */
  from: string;
  to: string;
  stream: { url: string; parameters: Record<string, string> };
  ringTimeoutSeconds: number;
  attempt: { key: string; since: string; retried: boolean };
}

interface OutboundTrunk {
  phoneNumber: string;
  sipAddress: string;
  sipUsername: string | null;
  sipPassword: string | null;
  sipCallingFormat: CallingFormat | null;
  outboundProxy: boolean | null;
}

/** The trunk a call is made through: its owner's SIP trunk with the call's number. */
async function trunkOfCall(knex: Knex, callId: number): Promise<OutboundTrunk | undefined> {
  return knex('calls as c')
    .join('phone_numbers as n', function trunkOfTheCall() {
      this.on('n.user_id', 'c.user_id').andOn('n.phone_number', 'c.assistant_phone_number').andOnVal('n.type', 'sip');
    })
    .where('c.id', callId).whereIn('n.status', HELD_STATUSES).orderBy('n.id')
    .first<OutboundTrunk | undefined>('n.phone_number', 'n.sip_address', 'n.sip_username', 'n.sip_password', 'n.sip_calling_format', 'n.outbound_proxy');
}

/**
 * Where a call is sent to reach `number` through a trunk: `sip:<number>@<sip_address>`, the number written as
 * the trunk's calling format; a SIP URI (a warm transfer's `custom_sip`) is taken as it is.
 */
export function trunkTarget(trunk: Pick<OutboundTrunk, 'sipAddress' | 'sipCallingFormat'>, number: string, port: number): string {
  if (/^sips?:/i.test(number)) return number;
  return `sip:${formatForTrunk(number, trunk.sipCallingFormat ?? '+e164')}@${trunk.sipAddress}${port === 5060 ? '' : `:${port}`}`;
}

/** The host of a SIP URI, lower-cased (IPv6 hosts stay in their brackets); undefined for what is not one. */
export function uriHost(uri: string): string | undefined {
  return /^sips?:(?:[^@]*@)?(\[[^\]]+\]|[^:;?>]+)/i.exec(uri)?.[1]?.toLowerCase();
}

/**
 * Places a call through its trunk, once per dial attempt: the attempt's key is claimed with the call's new id in
 * `sip_calls` before the gateway is asked, so the same key asked again (a retried activity whose answer was
 * lost) answers that id and dials nobody. A call whose number is no longer a trunk is refused.
 */
export async function placeSipCall(deps: SipOutboundDeps, request: SipDialRequest): Promise<{ callSid: string }> {
  const { knex } = deps;
  const trunk = await trunkOfCall(knex, request.callId);
  if (!trunk) throw new RejectedError('The number this call is made from is not a SIP trunk of its owner any more.');
  const callSid = newSipCallSid();
  const claimed = await knex('sip_calls').insert({ callSid, callId: request.callId, dialKey: request.attempt.key, gatewayUrl: deps.gatewayUrl() })
    .onConflict('dialKey').ignore().returning('callSid') as unknown[];
  if (claimed.length === 0) {
    const earlier = await knex('sip_calls').where({ dialKey: request.attempt.key }).first<{ callSid: string } | undefined>('callSid');
    // The claim went between the two statements (its dial failed meanwhile): the next try claims it afresh.
    if (!earlier) throw new Error(`The dial of call ${request.callId} was being retried at the same moment; try again.`);
    deps.logger.info({ callId: request.callId, callSid: earlier.callSid }, 'a dial asked again: answering the call placed the first time');
    return { callSid: earlier.callSid };
  }
  const format = trunk.sipCallingFormat ?? '+e164';
  const password = passwordOf(deps, trunk, request.callId);
  try {
    await deps.gateway.ask('dial', {
      callSid,
      from: formatForTrunk(trunk.phoneNumber, format),
      to: formatForTrunk(request.to, format),
      host: trunk.sipAddress,
      port: deps.sip.trunkPort,
      proxy: trunk.outboundProxy ?? false,
      username: trunk.sipUsername ?? '',
      password,
      ringTimeoutSeconds: request.ringTimeoutSeconds,
      stream: request.stream,
    });
  } catch (error) {
    // Not running: nothing was dialed, and the claim goes so that the retry dials. Any other failure may
    // have dialed: the claim stays, and a call that never rings ends when its ringing times out.
    if (!deps.gateway.listening) await knex('sip_calls').where({ callSid }).delete();
    throw error;
  }
  deps.logger.info({ callId: request.callId, callSid, to: request.to, host: trunk.sipAddress }, 'placed a SIP call');
  return { callSid };
}

/** A trunk's password, unsealed; a password that does not unseal is none (the far end's challenge then fails). */
function passwordOf(deps: SipOutboundDeps, trunk: OutboundTrunk, callId: number): string {
  try {
    return trunk.sipPassword ? deps.secrets.decrypt(trunk.sipPassword, SIP_PASSWORD_PURPOSE) : '';
  } catch (error) {
    deps.logger.warn({ err: error, callId }, 'the trunk\'s password does not unseal: dialing without it');
    return '';
  }
}

/** How the gateway reaches a transfer's target as a call of its own through the call's trunk (its `legRequest`). */
interface LegRequest {
  from: string;
  host: string;
  port: number;
  proxy: boolean;
  username: string;
  password: string;
  ringTimeoutSeconds: number;
}

/**
 * The leg to `target` through `trunk`, from `from` (E.164, written in the trunk's calling format): the trunk's
 * credentials go only to the trunk's own address, so a SIP URI elsewhere (a `custom_sip` supervisor) never gets them.
 */
function legThrough(deps: SipOutboundDeps, trunk: OutboundTrunk, target: string, from: string, callId: number, ringTimeoutSeconds: number): LegRequest {
  const sameHost = uriHost(target) === trunk.sipAddress.toLowerCase();
  return {
    from: formatForTrunk(from, trunk.sipCallingFormat ?? '+e164'),
    host: trunk.sipAddress,
    port: deps.sip.trunkPort,
    proxy: trunk.outboundProxy ?? false,
    username: sameHost ? trunk.sipUsername ?? '' : '',
    password: sameHost ? passwordOf(deps, trunk, callId) : '',
    ringTimeoutSeconds,
  };
}

/**
 * Hands an answered call to `to` (a number, reached through the call's trunk, or a SIP URI) with a REFER; a far
 * end that refuses it has the gateway dial `to` through the trunk itself and join the caller to it, the caller
 * hearing the apology a carrier's failed `<Dial>` says when nobody answers. The outcome comes later as a gateway
 * notice. A call that cannot be handed over at all is a `RejectedError`.
 */
export async function transferSipCall(deps: SipOutboundDeps, call: { callSid: string; callId: number }, to: string, ringTimeoutSeconds: number): Promise<void> {
  const trunk = await trunkOfCall(deps.knex, call.callId);
  if (!trunk && !/^sips?:/i.test(to)) throw new RejectedError('This call\'s number is not a SIP trunk any more: there is nowhere to send the transfer.');
  const target = trunk ? trunkTarget(trunk, to, deps.sip.trunkPort) : to;
  const leg = trunk && legThrough(deps, trunk, target, trunk.phoneNumber, call.callId, ringTimeoutSeconds);
  try {
    await deps.gateway.ask('transfer', { callSid: call.callSid, target, apology: TRANSFER_FAILED, ...(leg ? { leg } : {}) });
  } catch (error) {
    throw new RejectedError(error instanceof Error ? error.message : String(error));
  }
}

/** A warm transfer of a trunk call, as the media role asks for it (the trunk carrier's `warmTransfer`). */
export interface SipWarmTransfer {
  /** The supervisor: a number (E.164), reached through the call's trunk, or a SIP URI (`custom_sip`). */
  to: string;
  /** The number the supervisor sees calling (E.164). */
  callerId: string;
  ringTimeoutSeconds: number;
  /** The hold music's volume (0 to 100); null: the caller waits in silence. */
  holdMusicVolume: number | null;
  briefing: string;
  connectedMessage: string;
}

/**
 * Holds an answered trunk call for a supervisor (`warm_call_transfer`): the gateway dials the supervisor through
 * the call's trunk as a leg of its own, plays the caller the hold music, the supervisor the briefing and the
 * caller the connected message (Parley synthesizes them when the gateway asks), then joins the two; a supervisor
 * who does not take the call leaves the caller the apology. Answers the supervisor leg's SIP Call-ID; the steps
 * come later as gateway notices. A call that cannot be held is a `RejectedError`.
 */
export async function warmTransferSipCall(deps: SipOutboundDeps, call: { callSid: string; callId: number }, request: SipWarmTransfer): Promise<{ supervisorCallId: string }> {
  const trunk = await trunkOfCall(deps.knex, call.callId);
  if (!trunk) throw new RejectedError('This call\'s number is not a SIP trunk any more: there is no way to reach the supervisor.');
  const target = trunkTarget(trunk, request.to, deps.sip.trunkPort);
  try {
    return await deps.gateway.ask<{ supervisorCallId: string }>('warm-transfer', {
      callSid: call.callSid,
      target,
      leg: legThrough(deps, trunk, target, request.callerId, call.callId, request.ringTimeoutSeconds),
      holdMusic: request.holdMusicVolume === null ? '' : holdMusicMulaw(request.holdMusicVolume).toString('base64'),
      briefing: request.briefing.slice(0, MAX_SPOKEN_CHARS),
      connected: request.connectedMessage.slice(0, MAX_SPOKEN_CHARS),
      apology: TRANSFER_FAILED,
    });
  } catch (error) {
    throw new RejectedError(error instanceof Error ? error.message : String(error));
  }
}
