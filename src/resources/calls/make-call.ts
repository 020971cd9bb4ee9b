import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ownerCanAffordCall } from '../../billing/call-affordability.ts';
import { reserveNewCall } from '../../billing/call-reservations.ts';
import { claimCallSlot } from '../../billing/live-calls.ts';
import { BadRequestError, CallUnaffordableError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import type { LanguageModel } from '../../providers/llm/types.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { startCallLifecycle } from '../../temporal/starters.ts';
import { NO_MODEL_MESSAGE } from '../conversations/service.ts';
import { describeDialingCountries, dialingCountryList } from '../dialing-countries/service.ts';

export interface MakeCallDeps {
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
  /** A call needs a language model as a chat does; without one, calls answer 503. */
  model: LanguageModel | undefined;
}

export const makeCallTexts = {
  invalidNumber: 'Invalid phone number format. Please use E.164 format (e.g. +1234567890)',
  assistantNotFound: 'Assistant not found or does not belong to the authenticated user',
  noNumber: 'This assistant has no phone number to call from. Assign one of your phone numbers to it first.',
};

interface CallingAssistant {
  id: number;
  name: string;
  variables: Record<string, unknown> | null;
  phoneNumber: string | null;
}

/** An outbound call to create: who calls whom, with the caller's variables, for a campaign's lead or not. */
export interface OutboundCall {
  userId: number;
  assistant: { id: number; name: string; variables: Record<string, unknown> | null };
  /** E.164: the number called from, and the number called. */
  from: string;
  to: string;
  variables: Record<string, unknown>;
  campaign?: { id: number; name: string; leadId: number };
  /** The share of the plan's concurrent calls, in percent, this call may not take (a campaign's: kept for inbound calls). */
  reservePercent?: number;
}

/**
 * Takes one of the owner's concurrent-call slots (or refuses with 429, UsageLimitError) and the call's first
 * minute of the balance (or refuses with 422, CallUnaffordableError), and creates the call `initiated` in the
 * same transaction: its variables are the assistant's, then the caller's, then `customer_phone`. Its lifecycle,
 * started after the transaction commits, dials it.
 */
export async function createOutboundCall(trx: Knex.Transaction, call: OutboundCall): Promise<number> {
  await claimCallSlot(trx, call.userId, 'owner', call.reservePercent);
  const reservation = await reserveNewCall(trx, call.userId, call.assistant.id);
  const [row] = await trx('calls').insert({
    ...reservation,
    userId: call.userId,
    assistantId: call.assistant.id,
    assistantName: call.assistant.name,
    type: 'outbound',
    status: 'initiated',
    assistantPhoneNumber: call.from,
    clientPhoneNumber: call.to,
    variables: JSON.stringify({ ...call.assistant.variables, ...call.variables, customer_phone: call.to }),
    ...(call.campaign ? { campaignId: call.campaign.id, campaignName: call.campaign.name, leadId: call.campaign.leadId } : {}),
  }).returning<{ id: number }[]>('id');
  return Number(row?.id);
}

/**
 * Places an outbound call: the customer's number must be E.164 in a country the account calls, the
 * assistant the caller's own with a number to call from, the balance must pay a first minute, and the
 * account must be under its plan's concurrent calls. The call is created `initiated` (createOutboundCall)
 * and its lifecycle, which dials it, is started.
 */
export async function makeCall(deps: MakeCallDeps, userId: number, request: { phoneNumber: string; assistantId: number; variables: Record<string, unknown> }): Promise<{ callId: number }> {
  const { knex } = deps;
  const parsed = parsePhoneNumberFromString(request.phoneNumber);
  if (!/^\+[1-9]\d{6,14}$/.test(request.phoneNumber) || !parsed?.isValid()) throw new BadRequestError(makeCallTexts.invalidNumber);
  const assistant = await knex('assistants as a')
    .leftJoin('phone_numbers as n', function heldNumber() {
      this.on('n.id', 'a.phone_number_id').andOnIn('n.status', ['active', 'past_due']);
    })
    .where({ 'a.id': request.assistantId, 'a.user_id': userId })
    .first<CallingAssistant | undefined>('a.id', 'a.name', 'a.variables', 'n.phone_number');
  if (!assistant) throw new NotFoundError(makeCallTexts.assistantNotFound);
  if (!deps.model) throw new ServiceUnavailableError(NO_MODEL_MESSAGE);
  if (!assistant.phoneNumber) throw new UnprocessableError(makeCallTexts.noNumber);
  const country = parsed.country ?? 'unknown';
  const allowed = await dialingCountryList(knex, userId);
  if (!allowed.countries.includes(country)) {
    throw new UnprocessableError(`Calls to ${country} numbers are not allowed for this account: it calls ${describeDialingCountries(allowed)}.`);
  }
  if (!(await ownerCanAffordCall(knex, userId))) throw new CallUnaffordableError();

  const from = assistant.phoneNumber;
  const callId = await knex.transaction((trx) => createOutboundCall(trx, { userId, assistant, from, to: parsed.number, variables: request.variables }));
  try {
    await startCallLifecycle(deps.temporal, { id: callId, userId, assistantId: assistant.id }, deps.logger);
  } catch (error) {
    // A call nothing follows would stay `initiated` for ever: without its workflow there is no call.
    await knex('calls').where({ id: callId }).delete();
    throw error;
  }
  return { callId };
}
