import type { Knex } from 'knex';
import type { SecretBox } from '../lib/secrets.ts';
import type { Logger } from '../logger.ts';
import { newSipCallSid } from '../providers/telephony/sip-trunks.ts';
import { admitInboundCall, type InboundCallDeps } from '../resources/carrier-callbacks/inbound.ts';
import { HELD_STATUSES } from '../resources/phone-numbers/model.ts';
import { SIP_PASSWORD_PURPOSE } from '../resources/sip-trunks/service.ts';
import { numberVariants } from './calling-format.ts';

/** A trunk as the gateway authenticates an INVITE to one of its numbers (src/sip/gateway/trunks.go). */
export interface GatewayTrunk {
  id: number;
  auth: 'ip' | 'auth';
  allowed: string[];
  username: string;
  password: string;
}

interface TrunkRow {
  id: number;
  inboundAuthorizationType: string | null;
  allowedInboundIps: string[] | null;
  sipUsername: string | null;
  sipPassword: string | null;
}

/**
 * The trunks that own `number` (the Request-URI's user part, with or without `+`), with what the gateway
 * needs to let a call in: an `ip` trunk's addresses, an `auth` trunk's username and password. The password is
 * unsealed here and crosses only the gateway's pipe; a password that no longer unseals (another app key) leaves
 * its trunk out.
 */
export async function trunksForNumber(deps: { knex: Knex; secrets: SecretBox; logger: Logger }, number: string): Promise<GatewayTrunk[]> {
  const rows = await deps.knex('phone_numbers').where({ type: 'sip' }).whereIn('status', HELD_STATUSES).whereIn('phoneNumber', numberVariants(number))
    .orderBy('id').limit(20).select<TrunkRow[]>('id', 'inboundAuthorizationType', 'allowedInboundIps', 'sipUsername', 'sipPassword');
  const trunks: GatewayTrunk[] = [];
  for (const row of rows) {
    const id = Number(row.id);
    if (row.inboundAuthorizationType === 'ip') {
      trunks.push({ id, auth: 'ip', allowed: row.allowedInboundIps ?? [], username: '', password: '' });
      continue;
    }
    try {
      const password = row.sipPassword ? deps.secrets.decrypt(row.sipPassword, SIP_PASSWORD_PURPOSE) : '';
      trunks.push({ id, auth: 'auth', allowed: [], username: row.sipUsername ?? '', password });
    } catch (error) {
      deps.logger.warn({ err: error, trunkId: id }, 'a SIP trunk\'s password does not unseal: its calls cannot be authenticated');
    }
  }
  return trunks;
}

/** What the gateway does with an INVITE it authenticated: refuse it with a SIP status, or answer it as `callSid`. */
export type GatewayAdmission =
  | { code: number; reason: string }
  | { code: 0; reason: ''; callSid: string; stream: { url: string; parameters: Record<string, string> } };

export interface SipInboundRequest {
  trunkId: number;
  /** The number as the carrier sent it, and the caller's (From, or P-Asserted-Identity). */
  number: string;
  caller: string;
  sipCallId: string;
  source: string;
}

/**
 * A call the gateway let in on one of a trunk's numbers, admitted as any call to a number is
 * (`admitInboundCall`): a number with no assistant, or whose owner cannot pay, is not in service (480); the plan's
 * concurrent calls all taken is busy (486); refused calls leave no record. An admitted call is recorded with the
 * gateway's id for it and this replica as the one holding it.
 */
export async function admitSipCall(deps: InboundCallDeps & { gatewayUrl: () => string }, request: SipInboundRequest): Promise<GatewayAdmission> {
  const callSid = newSipCallSid();
  const decision = await admitInboundCall(deps, { number: { numberId: request.trunkId }, from: request.caller, providerCallId: callSid });
  switch (decision.kind) {
    case 'unknown':
      return { code: 404, reason: 'Not Found' };
    case 'not_in_service':
      return { code: 480, reason: 'Temporarily Unavailable' };
    case 'busy':
      return { code: 486, reason: 'Busy Here' };
    case 'stream':
      await deps.knex('sip_calls').insert({ callSid, callId: decision.callId, gatewayUrl: deps.gatewayUrl() });
      deps.logger.info({ callId: decision.callId, callSid, trunkId: request.trunkId, source: request.source, sipCallId: request.sipCallId }, 'a SIP call came in');
      return { code: 0, reason: '', callSid, stream: decision.stream };
  }
}
