import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallStats } from '../../src/resources/calls/stats-routes.ts';
import { insertCalls, spokenTurns } from '../support/calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { schemaViolations } from '../support/response-schema.ts';
import { createTestUser } from '../support/users.ts';

const NOW = new Date('2026-11-20T15:00:00Z');

/** A call's turns with one assistant reply per latency given (the caller-felt one), as the engine writes them. */
function replies(...latencies: number[]) {
  return spokenTurns(new Date('2026-11-20T09:00:00Z'), latencies.flatMap((latency, index) => [
    { role: 'user' as const, text: 'Hello?', fromMs: index * 4000, toMs: index * 4000 + 1000 },
    { role: 'assistant' as const, text: 'Hi.', fromMs: index * 4000 + 1000 + latency, toMs: index * 4000 + 3000, metrics: { end_of_speech_to_first_audio_ms: latency, llm_first_token_ms: 100 } },
  ]));
}

describe('GET /user/calls/stats', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ clock: () => NOW });
  });
  afterAll(() => platform.close());

  const knex = () => platform.database.knex;
  const ledger = (userId: number, usd: number, at: string) =>
    knex()('balance_transactions').insert({ user_id: userId, amount_micros: Math.round(usd * 1e6), kind: 'adjustment', idempotency_key: randomUUID(), created_at: at });

  it('counts calls, minutes, the answer rate, spend and the felt latency per UTC day and in all, over the last days only', async () => {
    const user = await createTestUser(knex());
    const other = await createTestUser(knex());
    await insertCalls(knex(), user.id, [
      { status: 'completed', duration: 60, turns: replies(400, 600), created_at: '2026-11-20T09:00:00Z' },
      { status: 'no-answer', created_at: '2026-11-20T10:00:00Z' },
      { status: 'busy', created_at: '2026-11-20T11:00:00Z' },
      { status: 'ringing', created_at: '2026-11-20T14:59:00Z' },
      { status: 'ended_by_customer', duration: 30, turns: replies(1000), created_at: '2026-11-19T23:59:59Z' },
      // Before the period.
      { status: 'completed', duration: 600, turns: replies(5000), created_at: '2026-10-01T12:00:00Z' },
    ]);
    await insertCalls(knex(), other.id, [{ status: 'completed', duration: 90, turns: replies(9999), created_at: '2026-11-20T12:00:00Z' }]);
    await ledger(user.id, -0.5, '2026-11-20T09:02:00Z');
    await ledger(user.id, -0.25, '2026-11-19T12:00:00Z');
    await ledger(user.id, 10, '2026-11-19T12:00:00Z');
    await ledger(user.id, -1, '2026-10-01T12:00:00Z');

    const answer = await platform.request('GET', '/user/calls/stats', { token: user.token });
    expect(answer.status, answer.text).toBe(200);
    expect(schemaViolations(CallStats, answer.body)).toEqual([]);
    const { data } = answer.body;
    expect(data).toMatchObject({ from: '2026-10-22', to: '2026-11-20' });
    expect(data.total).toEqual({ calls: 5, answered: 2, unanswered: 2, minutes: 1.5, spend: 0.75, latency_p50_ms: 600, latency_p95_ms: 960, replies: 3 });
    expect(data.days).toHaveLength(30);
    expect(data.days.at(-1)).toEqual({ date: '2026-11-20', calls: 4, answered: 1, unanswered: 2, minutes: 1, spend: 0.5, latency_p50_ms: 500, latency_p95_ms: 590, replies: 2 });
    expect(data.days.at(-2)).toEqual({ date: '2026-11-19', calls: 1, answered: 1, unanswered: 0, minutes: 0.5, spend: 0.25, latency_p50_ms: 1000, latency_p95_ms: 1000, replies: 1 });
    expect(data.days[0]).toEqual({ date: '2026-10-22', calls: 0, answered: 0, unanswered: 0, minutes: 0, spend: 0, latency_p50_ms: null, latency_p95_ms: null, replies: 0 });

    const today = await platform.request('GET', '/user/calls/stats?days=1', { token: user.token });
    expect(today.body.data.days.map((day: { date: string }) => day.date)).toEqual(['2026-11-20']);
    expect(today.body.data.total.calls).toBe(4);
  });

  it('keeps its daily rollups as the calls change: turns appended one by one, the final duration, a call moved and deleted', async () => {
    const user = await createTestUser(knex());
    const stats = async () => (await platform.request('GET', '/user/calls/stats?days=2', { token: user.token })).body.data.total;
    const [live, other] = await insertCalls(knex(), user.id, [
      { status: 'in-progress', created_at: '2026-11-20T09:00:00Z' },
      { status: 'completed', duration: 120, turns: replies(300, 700, 700), created_at: '2026-11-19T09:00:00Z' },
    ]);
    // As the media role stores them: each turn appended to the row in its own statement.
    for (const turn of replies(200, 900)) {
      await knex()('calls').where({ id: live }).update({ turns: knex().raw('turns || ?::jsonb', [JSON.stringify([turn])]) });
    }
    expect(await stats()).toMatchObject({ replies: 5, latency_p50_ms: 700, latency_p95_ms: 860, minutes: 2 });
    await knex()('calls').where({ id: live }).update({ status: 'completed', duration: 90, ended_at: '2026-11-20T09:01:30Z' });
    // A status change that moves nothing the rollups hold writes nothing there.
    await knex()('calls').where({ id: live }).update({ evaluation: JSON.stringify({ ok: true }) });
    expect(await stats()).toMatchObject({ replies: 5, minutes: 3.5 });
    // The same figures as percentile_cont over the calls' replies, read the slow way.
    const direct = await knex().raw(`select percentile_cont(0.5) within group (order by (t->'metrics'->>'end_of_speech_to_first_audio_ms')::float8) as median,
      percentile_cont(0.95) within group (order by (t->'metrics'->>'end_of_speech_to_first_audio_ms')::float8) as high
      from calls c cross join lateral jsonb_array_elements(c.turns) t where c.user_id = ? and t->'metrics'->>'end_of_speech_to_first_audio_ms' is not null`, [user.id]);
    expect(await stats()).toMatchObject({ latency_p50_ms: Math.round(direct.rows[0].median), latency_p95_ms: Math.round(direct.rows[0].high) });

    await knex()('calls').where({ id: other }).update({ created_at: '2026-10-01T09:00:00Z' });
    expect(await stats()).toMatchObject({ replies: 2, latency_p50_ms: 550, minutes: 1.5 });
    await knex()('calls').where({ id: live }).delete();
    expect(await stats()).toMatchObject({ replies: 0, latency_p50_ms: null, latency_p95_ms: null, minutes: 0 });
    // A user's rollups go with the user.
    await knex()('users').where({ id: user.id }).delete();
    expect(await knex()('call_day_latencies').where({ user_id: user.id }).count({ rows: '*' })).toEqual([{ rows: expect.toSatisfy((rows) => Number(rows) === 0) }]);
  });

  it('answers a user without calls with zeros, and refuses a period outside 1 to 90 days', async () => {
    const user = await createTestUser(knex());
    const answer = await platform.request('GET', '/user/calls/stats?days=7', { token: user.token });
    expect(answer.body.data.total).toEqual({ calls: 0, answered: 0, unanswered: 0, minutes: 0, spend: 0, latency_p50_ms: null, latency_p95_ms: null, replies: 0 });
    expect((await platform.request('GET', '/user/calls/stats?days=91', { token: user.token })).status).toBe(422);
    expect((await platform.request('GET', '/user/calls/stats')).status).toBe(401);
  });
});
