import type { Knex } from 'knex';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import { ownerCanAffordCall } from '../../billing/call-affordability.ts';
import { describeDialingCountries, dialingCountryList } from '../../calls/dialing-countries.ts';
import { callingAssistant, createOutboundCall } from '../../calls/outbound.ts';
import { BadRequestError, CallUnaffordableError, NotFoundError, ServiceUnavailableError, UnprocessableError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import type { LanguageModel } from '../../providers/llm/types.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { startCallLifecycle } from '../../temporal/starters.ts';
import { NO_MODEL_MESSAGE } from '../conversations/service.ts';

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

/**
 * Places an outbound call: the customer's number must be E.164 in a country the account calls, the
 * assistant the caller's own with a number to call from, the balance must pay a first minute, and the
 * account must be under its plan's concurrent calls. The call is created `initiated` (calls/outbound.ts)
 * and its lifecycle, which dials it, is started.
 */
export async function makeCall(deps: MakeCallDeps, userId: number, request: { phoneNumber: string; assistantId: number; variables: Record<string, unknown> }): Promise<{ callId: number }> {
  const { knex } = deps;
  const parsed = parsePhoneNumberFromString(request.phoneNumber);
  if (!/^\+[1-9]\d{6,14}$/.test(request.phoneNumber) || !parsed?.isValid()) throw new BadRequestError(makeCallTexts.invalidNumber);
  const assistant = await callingAssistant(knex, { id: request.assistantId, userId });
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
