import type { Readable } from 'node:stream';
import type { Knex } from 'knex';
import { recordingPath } from '../../calls/recordings.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { PageRequest } from '../../lib/pagination.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { checkSignedPath } from '../../lib/signed-links.ts';
import type { FileStorage } from '../../providers/storage/index.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { requestCallEnd } from '../../temporal/call-signals.ts';
import { Call, LIVE_STATUSES, type CallRecord, type CallStatus, type CallType } from './model.ts';
import { findCallPage, type CallFilters } from './queries.ts';
import type { CallListQuery } from './schemas.ts';

export interface CallDeps {
  knex: Knex;
  storage: FileStorage;
  temporal: TemporalClient;
  secrets: SecretBox;
}

export const CALL_NOT_FOUND = 'Call not found';
export const CALL_NOT_OWNED = 'Call not found or does not belong to the authenticated user';
/** Laravel's text for a signed route whose signature is wrong or has expired. */
const INVALID_SIGNATURE = 'Invalid signature.';
/** The end reason of a live call ended because its record was deleted. */
export const DELETED_END_REASON = 'deleted';

/** The query's filters, checked beyond what the schema can say and normalised. */
export function callFilters(query: CallListQuery): CallFilters {
  if (query.date_from && query.date_to && query.date_to < query.date_from) {
    throw ValidationError.of('date_to', 'The date to field must be a date after or equal to date from.');
  }
  return {
    status: query.status as CallStatus | undefined,
    type: query.type as CallType | undefined,
    phoneNumber: query.phone_number === undefined ? undefined : `+${query.phone_number.replace(/\D/g, '')}`,
    assistantId: query.assistant_id,
    campaignId: query.campaign_id,
    dateFrom: query.date_from,
    dateTo: query.date_to,
  };
}

export async function listCalls(knex: Knex, userId: number, query: CallListQuery, page: PageRequest): Promise<{ calls: CallRecord[]; total: number }> {
  return findCallPage(knex, userId, callFilters(query), page);
}

export async function getCall(knex: Knex, userId: number, id: number): Promise<CallRecord> {
  const call = await Call.query(knex).findOne({ id, userId });
  if (!call) throw new NotFoundError(CALL_NOT_FOUND);
  return call;
}

/**
 * Deletes a call and its recording. A call still live is ended first through its workflow, which is given a
 * few seconds to finish it (charge its duration) before the record goes; one that takes longer finds the
 * record gone and stops there.
 */
/** How long deleting a live call waits for its workflow to end and charge it. */
const LIVE_CALL_END_WAIT_MS = 10_000;

export async function deleteCall(deps: CallDeps, userId: number, id: number): Promise<void> {
  const call = await Call.query(deps.knex).findOne({ id, userId });
  if (!call) throw new NotFoundError(CALL_NOT_OWNED);
  if (LIVE_STATUSES.includes(call.status)) await requestCallEnd(deps.temporal, call.id, DELETED_END_REASON, LIVE_CALL_END_WAIT_MS);
  const deleted = await Call.query(deps.knex).delete().where({ id, userId });
  // A concurrent delete of the same call got there first; its request deletes the recording.
  if (deleted === 0) throw new NotFoundError(CALL_NOT_OWNED);
  if (call.recordingKey) await deps.storage.delete(call.recordingKey);
}

/** The recording of a call, for a signed link made by `recordingUrl` that has not expired. */
export async function openRecording(
  deps: Pick<CallDeps, 'knex' | 'storage' | 'secrets'>,
  callId: number,
  link: { expires?: string | undefined; signature?: string | undefined },
  now: Date,
): Promise<{ stream: Readable; size: number }> {
  if (checkSignedPath(deps.secrets, recordingPath(callId), link, now) !== 'valid') throw new ForbiddenError(INVALID_SIGNATURE);
  const call = await Call.query(deps.knex).findById(callId).select('recording_key');
  const file = call?.recordingKey ? await deps.storage.openRead(call.recordingKey) : undefined;
  if (!file) throw new NotFoundError('Recording not found');
  return file;
}
