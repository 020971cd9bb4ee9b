import type { Knex } from 'knex';
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody } from '../../api/schemas.ts';
import type { RecordingLinks } from '../../calls/recordings.ts';
import type { Clock } from '../../lib/clock.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import type { FileStorage } from '../../providers/storage/index.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { CallItem, CallListQuery, CallPage, RecordingQuery } from './schemas.ts';
import { callItem } from './serialize.ts';
import { deleteCall, getCall, listCalls, openRecording } from './service.ts';
import { callStatsRoute } from './stats-routes.ts';

export interface CallRouteDeps {
  knex: Knex;
  storage: FileStorage;
  temporal: TemporalClient;
  secrets: SecretBox;
  /** Base URL of the API's clients, for page links and recording links. */
  publicUrl: string;
  /** When recording links expire from, and are checked against. */
  now: Clock;
}

const TAG = 'Calls';

export function callRoutes(deps: CallRouteDeps): RouteDefinition[] {
  const links = (): RecordingLinks => ({ secrets: deps.secrets, publicUrl: deps.publicUrl, now: deps.now() });
  return [
    callStatsRoute(deps),
    defineRoute({
      method: 'GET',
      path: '/user/calls',
      tag: TAG,
      summary: "List the caller's calls, newest first, filtered and paginated (the filters stay in the page links)",
      auth: 'bearer',
      query: CallListQuery,
      responses: { 200: { description: 'A page of calls', schema: CallPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { calls, total } = await listCalls(deps.knex, auth.user.id, query, page);
        const signing = links();
        return {
          body: lengthAwarePage({
            data: calls.map((call) => callItem(call, signing)),
            total,
            page,
            path: `${deps.publicUrl}/api/user/calls`,
            query: ctx.query,
          }),
        };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/calls/{id}',
      tag: TAG,
      summary: 'Get one call (the object itself, as in the list)',
      auth: 'bearer',
      params: IdParams,
      responses: { 200: { description: 'The call', schema: CallItem }, 404: { description: 'No such call of the caller: `Call not found`', schema: MessageBody } },
      async handle({ auth, params }) {
        return { body: callItem(await getCall(deps.knex, auth.user.id, params.id), links()) };
      },
    }),
    defineRoute({
      method: 'DELETE',
      path: '/user/calls/{id}',
      tag: TAG,
      summary: 'Delete a call and its recording; a call still ringing or in progress is hung up first',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: Type.Object({ message: Type.Literal('Call deleted successfully') }) },
        404: { description: 'No such call of the caller: `Call not found or does not belong to the authenticated user`', schema: MessageBody },
      },
      async handle({ auth, params }) {
        await deleteCall(deps, auth.user.id, params.id);
        return { body: { message: 'Call deleted successfully' } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/recordings/{id}',
      tag: TAG,
      summary: "A call's recording (WAV), through the signed, expiring link of the call's `recording_url`",
      auth: 'public',
      params: IdParams,
      query: RecordingQuery,
      errors: ['forbidden'],
      responses: {
        200: { description: 'The recording', schema: Type.String({ format: 'binary' }), contentType: 'audio/wav' },
        403: { description: 'The signature is wrong or has expired: `Invalid signature.`', schema: MessageBody },
        404: { description: 'The call or its recording is gone: `Recording not found`', schema: MessageBody },
      },
      async handle({ params, query }) {
        const { stream, size } = await openRecording(deps, params.id, query, deps.now());
        return {
          body: stream,
          type: 'audio/wav',
          headers: { 'Content-Length': String(size), 'Cache-Control': 'private, max-age=0, no-store' },
        };
      },
    }),
  ];
}
