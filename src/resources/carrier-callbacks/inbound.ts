import type { Knex } from 'knex';
import { ownerCanAffordCall } from '../../billing/call-affordability.ts';
import { reserveNewCall } from '../../billing/call-reservations.ts';
import { claimCallSlot, lockCallOwner } from '../../billing/live-calls.ts';
import { CallUnaffordableError, UsageLimitError } from '../../lib/errors.ts';
import { PHONE_STREAM_PATH, phoneStreamToken } from '../../lib/media-control.ts';
import type { SafeFetch } from '../../lib/safe-fetch.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import type { Logger } from '../../logger.ts';
import type { LanguageModel } from '../../providers/llm/types.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { startCallLifecycle } from '../../temporal/starters.ts';
import { askInboundWebhook } from '../../webhooks/inbound.ts';

export interface InboundCallDeps {
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
  secrets: SecretBox;
  model: LanguageModel | undefined;
  /** The guarded client, for the assistant's inbound-call webhook. */
  fetch: SafeFetch;
  /** MEDIA_PUBLIC_URL, read when a call comes in: where the carrier streams the call. */
  mediaPublicUrl: () => string;
}

/** What Parley tells the carrier to do with a call to one of its numbers, in TwiML. */
export const twiml = (verbs: string) => `<?xml version="1.0" encoding="UTF-8"?><Response>${verbs}</Response>`;
export const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export const NOT_IN_SERVICE = 'Sorry, this number cannot take calls right now. Please try again later. Goodbye.';

interface Receiving {
  numberId: number;
  phoneNumber: string;
  userId: number;
  assistantId: number | null;
  assistantUuid: string | null;
  assistantName: string | null;
  variables: Record<string, unknown> | null;
  inboundWebhookUrl: string | null;
}

/** The number a call reached: its E.164 text (a carrier's voice webhook), or a SIP trunk's row (the SIP gateway). */
export type InboundNumber = { phoneNumber: string } | { numberId: number };

/**
 * What Parley does with a call to one of its numbers: refuse it (a number nobody holds), say it is not in
 * service, refuse it as busy, or stream it to the media gateway as the call `callId`.
 */
export type InboundDecision =
  | { kind: 'unknown' }
  | { kind: 'not_in_service' }
  | { kind: 'busy' }
  | { kind: 'stream'; callId: number; stream: { url: string; parameters: Record<string, string> } };

/**
 * A call to one of the numbers Parley holds (the carrier's voice webhook), answered in TwiML: see
 * `admitInboundCall`; a call not in service hears a short message and is hung up on.
 */
export async function answerInboundCall(deps: InboundCallDeps, call: { to: string; from: string; providerCallId: string }): Promise<string> {
  const decision = await admitInboundCall(deps, { number: { phoneNumber: call.to }, from: call.from, providerCallId: call.providerCallId });
  switch (decision.kind) {
    case 'unknown':
      return twiml('<Reject reason="rejected"/>');
    case 'not_in_service':
      return twiml(`<Say>${escape(NOT_IN_SERVICE)}</Say><Hangup/>`);
    case 'busy':
      return twiml('<Reject reason="busy"/>');
    case 'stream': {
      const { url, parameters } = decision.stream;
      const stream = Object.entries(parameters).map(([name, value]) => `<Parameter name="${name}" value="${escape(value)}"/>`).join('');
      return twiml(`<Connect><Stream url="${escape(url)}">${stream}</Stream></Connect>`);
    }
  }
}

/**
 * A call to one of the numbers Parley holds: a number nobody holds is `unknown`; a held number without an
 * inbound assistant (or whose owner cannot pay a minute, or with no language model here) is not in service; a
 * call while the owner has as many calls live as the plan allows is `busy`, nothing recorded; otherwise the call
 * is recorded (`inbound`, the caller's number in the record and in `{{customer_phone}}`), its lifecycle started,
 * and it is to be streamed to the media gateway. When the assistant has an inbound webhook, it is asked once the
 * call is admitted (and only then), while the lifecycle starts; the variables it answers with are merged over
 * the assistant's before the stream is named (the media gateway reads them when the stream opens). The same
 * call announced twice gets the same answer, and its webhook is asked once.
 */
export async function admitInboundCall(deps: InboundCallDeps, call: { number: InboundNumber; from: string; providerCallId: string }): Promise<InboundDecision> {
  const { knex } = deps;
  const receiving = await knex('phone_numbers as n')
    .leftJoin('assistants as a', function inboundAssistant() {
      this.on('a.phone_number_id', 'n.id').andOnVal('a.type', 'inbound');
    })
    .where('phoneNumber' in call.number ? { 'n.phone_number': call.number.phoneNumber } : { 'n.id': call.number.numberId })
    .whereIn('n.status', ['active', 'past_due'])
    .first<Receiving | undefined>('n.id as number_id', 'n.phone_number', 'n.user_id', 'a.id as assistant_id', 'a.uuid as assistant_uuid', 'a.name as assistant_name', 'a.variables', 'a.inbound_webhook_url');
  if (!receiving) return { kind: 'unknown' };
  const { assistantId } = receiving;
  if (assistantId === null || !deps.model) return { kind: 'not_in_service' };
  if (!(await ownerCanAffordCall(knex, receiving.userId))) {
    deps.logger.info({ numberId: receiving.numberId, userId: receiving.userId }, 'an inbound call whose owner cannot pay a minute: not answered');
    return { kind: 'not_in_service' };
  }
  const to = receiving.phoneNumber;
  const admitted = await admit(knex, { ...receiving, assistantId }, { to, from: call.from, providerCallId: call.providerCallId });
  if (admitted === 'unaffordable') {
    deps.logger.info({ numberId: receiving.numberId, userId: receiving.userId }, 'an inbound call whose owner cannot pay a minute beside their live calls: not answered');
    return { kind: 'not_in_service' };
  }
  if (admitted === 'busy') {
    deps.logger.info({ numberId: receiving.numberId, userId: receiving.userId }, 'an inbound call with its owner at the plan\'s concurrent-call limit: rejected busy');
    return { kind: 'busy' };
  }
  if (admitted.earlier) return streamTo(deps, admitted.callId);
  const { callId } = admitted;
  const { inboundWebhookUrl: webhookUrl } = receiving;
  // Never rejects: a failing webhook leaves the call as it is.
  const asked = webhookUrl === null ? undefined : askInboundWebhook({ knex, box: deps.secrets, fetch: deps.fetch, logger: deps.logger }, webhookUrl, {
    callId,
    userId: receiving.userId,
    from: call.from,
    to,
    assistant: { id: assistantId, uuid: receiving.assistantUuid ?? '', name: receiving.assistantName ?? '' },
  });
  try {
    await startCallLifecycle(deps.temporal, { id: callId, userId: receiving.userId, assistantId: receiving.assistantId }, deps.logger);
  } catch (error) {
    // A call nothing follows would stay `initiated` for ever: without its workflow there is no call.
    await knex('calls').where({ id: callId }).delete();
    throw error;
  }
  if (asked) {
    const { variables, logged } = await asked;
    await Promise.all([
      Object.keys(variables).length === 0 ? undefined : knex('calls').where({ id: callId }).update({ variables: JSON.stringify(callVariables(receiving, variables, call.from)) }),
      logged,
    ]);
  }
  return streamTo(deps, callId);
}

/** A call's variables: the assistant's, then its inbound webhook's (as a `make_call` request's), then the caller's number. */
function callVariables(receiving: Receiving, given: Record<string, unknown>, from: string): Record<string, unknown> {
  return { ...receiving.variables, ...given, customer_phone: from };
}

/**
 * Records the call in one of the owner's concurrent-call slots (the same count `make_call` is refused at) with
 * its first minute reserved of the balance, or answers `busy` or `unaffordable` with nothing written. The
 * owner's row is locked first, so the same call announced again finds its record (and is not counted against
 * itself) and two calls at the last slot are admitted one at a time.
 */
async function admit(
  knex: Knex, receiving: Receiving & { assistantId: number }, call: { to: string; from: string; providerCallId: string },
): Promise<'busy' | 'unaffordable' | { callId: number; earlier: boolean }> {
  try {
    return await knex.transaction(async (trx) => {
      await lockCallOwner(trx, receiving.userId);
      const earlier = await trx('calls').where({ providerCallId: call.providerCallId }).first<{ id: number } | undefined>('id');
      if (earlier) return { callId: Number(earlier.id), earlier: true };
      await claimCallSlot(trx, receiving.userId, 'owner');
      const reservation = await reserveNewCall(trx, receiving.userId, receiving.assistantId);
      const [row] = await trx('calls').insert({
        ...reservation,
        userId: receiving.userId,
        assistantId: receiving.assistantId,
        assistantName: receiving.assistantName ?? '',
        type: 'inbound',
        status: 'initiated',
        assistantPhoneNumber: call.to,
        clientPhoneNumber: call.from,
        providerCallId: call.providerCallId,
        variables: JSON.stringify(callVariables(receiving, {}, call.from)),
      }).returning<{ id: number }[]>('id');
      return { callId: Number(row?.id), earlier: false };
    });
  } catch (error) {
    if (error instanceof UsageLimitError) return 'busy';
    if (error instanceof CallUnaffordableError) return 'unaffordable';
    throw error;
  }
}

/** The media gateway's stream for the call, with the call's id and stream credential as parameters. */
function streamTo(deps: InboundCallDeps, callId: number): InboundDecision {
  return {
    kind: 'stream',
    callId,
    stream: { url: `${deps.mediaPublicUrl()}${PHONE_STREAM_PATH}`, parameters: { callId: String(callId), token: phoneStreamToken(deps.secrets, callId) } },
  };
}
