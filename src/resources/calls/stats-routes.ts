import type { Knex } from 'knex';
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import type { Clock } from '../../lib/clock.ts';
import { callStats } from './stats.ts';

const StatsQuery = Type.Object({
  days: Type.Optional(Type.Integer({ minimum: 1, maximum: 90, default: 30, description: 'UTC days up to and including today; 1 to 90, default 30.' })),
});

const Milliseconds = Type.Union([Type.Integer(), Type.Null()]);
const Period = {
  calls: Type.Integer({ description: 'Calls created.' }),
  answered: Type.Integer({ description: 'Calls someone picked up (in progress or ended after an answer).' }),
  unanswered: Type.Integer({ description: 'Calls nobody picked up: busy, no answer, failed. The answer rate is answered / (answered + unanswered).' }),
  minutes: Type.Number({ description: 'Minutes talked, to a tenth.' }),
  spend: Type.Number({ description: 'USD charged to the balance (calls, chats, messages, numbers).' }),
  latency_p50_ms: { ...Milliseconds, description: "Median of the caller-felt latency (`end_of_speech_to_first_audio_ms`) over the assistants' replies; null without one." },
  latency_p95_ms: { ...Milliseconds, description: '95th percentile of the same.' },
  replies: Type.Integer({ description: 'Assistant replies whose latency was measured.' }),
};

export const CallStats = Type.Object({
  data: Type.Object({
    from: Type.String({ format: 'date' }),
    to: Type.String({ format: 'date' }),
    total: Type.Object(Period, { title: 'CallStatsPeriod' }),
    days: Type.Array(Type.Object({ date: Type.String({ format: 'date' }), ...Period }), { description: 'Every day of the period, oldest first, days without calls included.' }),
  }),
}, { title: 'CallStats' });

/**
 * `GET /user/calls/stats`: what the console's overview shows (a Parley extension). Before `/user/calls/{id}`, which
 * would otherwise take `stats` for an id.
 */
export function callStatsRoute(deps: { knex: Knex; now: Clock }): RouteDefinition {
  return defineRoute({
    method: 'GET',
    path: '/user/calls/stats',
    tag: 'Calls',
    summary: 'Calls, minutes, answer rate, spend and caller-felt latency per UTC day and in all, over the last days (a Parley extension)',
    auth: 'bearer',
    query: StatsQuery,
    responses: { 200: { description: 'The period, day by day', schema: CallStats } },
    async handle({ auth, query }) {
      return { body: { data: await callStats(deps.knex, auth.user.id, query.days ?? 30, deps.now()) } };
    },
  });
}
