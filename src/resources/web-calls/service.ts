import type { Knex } from 'knex';
import { ownerCanAffordCall } from '../../billing/call-affordability.ts';
import { reserveNewCall } from '../../billing/call-reservations.ts';
import { claimCallSlot } from '../../billing/live-calls.ts';
import type { Clock } from '../../lib/clock.ts';
import { CallUnaffordableError, NotFoundError, ServiceUnavailableError } from '../../lib/errors.ts';
import { randomSecret, sha256Hex } from '../../lib/tokens.ts';
import { isUuid } from '../../lib/uuid.ts';
import type { Logger } from '../../logger.ts';
import type { LanguageModel } from '../../providers/llm/types.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { startCallLifecycle } from '../../temporal/starters.ts';
import { NO_MODEL_MESSAGE } from '../conversations/service.ts';

export interface WebCallDeps {
  knex: Knex;
  temporal: TemporalClient;
  logger: Logger;
  /** A call needs a language model as a chat does; without one, calls answer the chats' 503. */
  model: LanguageModel | undefined;
  /** MEDIA_PUBLIC_URL: where browsers reach the media gateway. */
  mediaPublicUrl: string;
  clock: Clock;
}

/** How long a web call's media credential may wait to be used: as long as the call waits to connect. */
export const WEB_CALL_TOKEN_SECONDS = 60;

/** The assistant a web call is for: by id among the caller's own (bearer), or by its public UUID (widget). */
export type WebCallAssistant = { id: number; userId: number } | { uuid: string };

interface CallingAssistant {
  id: number;
  userId: number;
  name: string;
  variables: Record<string, unknown> | null;
}

async function findAssistant(knex: Knex, where: WebCallAssistant): Promise<CallingAssistant> {
  if ('uuid' in where) {
    const found = isUuid(where.uuid) ? await knex('assistants').where({ uuid: where.uuid }).first<CallingAssistant | undefined>('id', 'userId', 'name', 'variables') : undefined;
    if (!found) throw new NotFoundError('Assistant not found');
    return found;
  }
  const found = await knex('assistants').where({ id: where.id, userId: where.userId }).first<CallingAssistant | undefined>('id', 'userId', 'name', 'variables');
  if (!found) throw new NotFoundError('Assistant not found or does not belong to the authenticated user');
  return found;
}

export interface CreatedWebCall {
  callId: number;
  status: 'initiated';
  websocketUrl: string;
}

/**
 * Creates a web call (`initiated`, the assistant's name and variables copied in, the caller's variables over
 * them) with a single-use media credential of 60 seconds, of which only the SHA-256 hash is kept, and its first
 * minute reserved of the balance, and starts its lifecycle. A call its owner cannot pay a minute of (beside their
 * other live calls), or without a language model, is refused first; one past the owner's plan limit of
 * concurrent calls (phone calls counted too) is refused with 429.
 */
export async function createWebCall(deps: WebCallDeps, where: WebCallAssistant, variables: Record<string, unknown>): Promise<CreatedWebCall> {
  const { knex } = deps;
  const assistant = await findAssistant(knex, where);
  if (!deps.model) throw new ServiceUnavailableError(NO_MODEL_MESSAGE);
  if (!(await ownerCanAffordCall(knex, assistant.userId))) throw new CallUnaffordableError();
  const token = randomSecret();
  const callId = await knex.transaction(async (trx) => {
    await claimCallSlot(trx, assistant.userId, 'uuid' in where ? 'visitor' : 'owner');
    const reservation = await reserveNewCall(trx, assistant.userId, assistant.id);
    const [row] = await trx('calls').insert({
      ...reservation,
      userId: assistant.userId,
      assistantId: assistant.id,
      assistantName: assistant.name,
      type: 'web',
      status: 'initiated',
      variables: JSON.stringify({ ...assistant.variables, ...variables }),
      mediaTokenHash: sha256Hex(token),
      mediaTokenExpiresAt: new Date(deps.clock().getTime() + WEB_CALL_TOKEN_SECONDS * 1000),
    }).returning<{ id: number }[]>('id');
    return Number(row?.id);
  });
  try {
    await startCallLifecycle(deps.temporal, { id: callId, userId: assistant.userId, assistantId: assistant.id }, deps.logger);
  } catch (error) {
    // A call nothing follows would stay `initiated` for ever: without its workflow there is no call.
    await knex('calls').where({ id: callId }).delete();
    throw error;
  }
  return { callId, status: 'initiated', websocketUrl: `${deps.mediaPublicUrl}/media/web-call?token=${token}` };
}

/**
 * The call a web call's media credential opens, if it is one that is still good, without redeeming it: the
 * media gateway checks a stream's credential before it gives it a line, and redeems it once it has.
 */
export async function findWebCallToken(knex: Knex, token: string, now: Date): Promise<{ callId: number } | undefined> {
  if (!/^[A-Za-z0-9]{20,128}$/.test(token)) return undefined;
  const row = await knex('calls').where({ mediaTokenHash: sha256Hex(token) }).where('mediaTokenExpiresAt', '>', now).first<{ id: number } | undefined>('id');
  return row ? { callId: Number(row.id) } : undefined;
}

/**
 * Redeems a web call's media credential: the call it opens, once. The same statement that finds it clears
 * it, so of two sockets presenting it at the same moment one gets the call; an expired, unknown or used
 * credential opens nothing.
 */
export async function redeemWebCallToken(knex: Knex, token: string, now: Date): Promise<{ callId: number } | undefined> {
  if (!/^[A-Za-z0-9]{20,128}$/.test(token)) return undefined;
  const [row] = await knex('calls')
    .where({ mediaTokenHash: sha256Hex(token) })
    .where('mediaTokenExpiresAt', '>', now)
    .update({ mediaTokenHash: null, mediaTokenExpiresAt: null, updatedAt: knex.fn.now() })
    .returning<{ id: number }[]>('id');
  return row ? { callId: Number(row.id) } : undefined;
}
