/**
 * A year of one user's calls (and other users' interleaved) written in one statement, for the benches that need a
 * million calls behind the API (bench/calls-list.ts, bench/console.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { createApiKey } from '../../src/resources/api-keys/service.ts';
import { createUser } from '../../src/resources/users/service.ts';
import { callTurn, type MeasuredTurn } from '../../src/voice/turn-record.ts';
import { createTestAssistant } from '../../test/support/assistants.ts';
import { apiRequest } from '../../test/support/http.ts';

const ASSISTANTS = 20;
const INBOUND_ASSISTANTS = 6;
export const CAMPAIGN_BASE = 1000;
export const CAMPAIGNS = 10;
export const DAYS = 365;

const pgArray = (items: (number | string)[]) => `{${items.join(',')}}`;

/**
 * Every seeded call's turns, as the engine writes them: a greeting, the caller, and a reply whose caller-felt
 * latency each call draws afresh (REPLY_LATENCY), so the overview has a month of replies to take percentiles of.
 */
const spoken: MeasuredTurn[] = [
  { role: 'assistant', text: 'Hello, this is the assistant calling about your appointment.', startedAt: 400, endedAt: 3600, interrupted: false, metrics: { tts_first_byte_ms: 90 } },
  { role: 'user', text: 'Yes, tomorrow at ten works for me.', startedAt: 4300, endedAt: 6100, interrupted: false, metrics: {} },
  {
    role: 'assistant', text: 'Perfect, you are booked for ten tomorrow.', startedAt: 6900, endedAt: 9000, interrupted: false,
    metrics: { end_of_speech_to_first_audio_ms: 800, stt_final_delay_ms: 250, llm_first_token_ms: 300, tts_first_byte_ms: 120 },
  },
];
const REPLY_LATENCY = '{2,metrics,end_of_speech_to_first_audio_ms}';
const TURNS = JSON.stringify(spoken.map((turn) => callTurn({ clockMs: 0, at: new Date('2026-01-05T10:00:00Z') }, turn)));

/**
 * A year of calls of `users` (the first one gets `mainCalls`, each other `otherCalls`), interleaved in time as
 * a shared server holds them, in one statement (so the count triggers run once).
 */
export async function seedCalls(knex: Knex, users: { id: number; assistantIds: number[] }[], mainCalls: number, otherCalls: number): Promise<void> {
  const total = mainCalls + otherCalls * (users.length - 1);
  await knex.raw(`
    with drawn as (
      select g, case when random() < ? then 0 else 1 + floor(random() * ?)::int end as u,
        floor(random() * ${ASSISTANTS})::int as k, random() as rt, random() as rc, random() as rs, floor(random() * ?)::int as phone
      from generate_series(1, ?) as g
    ), typed as (
      select *, case when rt < 0.1 then 'web' when k < ${INBOUND_ASSISTANTS} then 'inbound' else 'outbound' end as type from drawn
    )
    insert into calls (user_id, assistant_id, assistant_name, campaign_id, campaign_name, type, status, assistant_phone_number,
      client_phone_number, duration, transcript, turns, variables, carrier_cost_micros, total_cost_micros, answered_by, created_at, updated_at, ended_at)
    select (?::bigint[])[u + 1], (?::bigint[][])[u + 1][k + 1], 'Assistant ' || k,
      case when type = 'outbound' and rc < 0.7 then ${CAMPAIGN_BASE} + k % ${CAMPAIGNS} end,
      case when type = 'outbound' and rc < 0.7 then 'Campaign ' || k % ${CAMPAIGNS} end,
      type,
      case when rs < 0.50 then 'completed' when rs < 0.60 then 'ended_by_customer' when rs < 0.68 then 'ended_by_assistant'
        when rs < 0.80 then 'no-answer' when rs < 0.86 then 'busy' when rs < 0.90 then 'failed' when rs < 0.97 then 'ended'
        when rs < 0.98 then 'in-progress' when rs < 0.99 then 'ringing' else 'initiated' end,
      '+1555000' || lpad(k::text, 4, '0'),
      '+1444' || lpad(phone::text, 7, '0'),
      floor(rs * 300)::int,
      'AI: Hello, this is the assistant calling about your appointment.' || chr(10) || 'Customer: Yes, tomorrow at ten works for me.',
      jsonb_set(?::jsonb, '${REPLY_LATENCY}', to_jsonb(450 + floor(random() * 700)::int + case when random() < 0.05 then 1500 else 0 end)),
      jsonb_build_object('customer_name', 'Customer ' || phone),
      floor(rs * 100000)::bigint, floor(rs * 400000)::bigint, 'human',
      now() - interval '${DAYS} days' + (g::float8 / ?) * interval '${DAYS} days',
      now() - interval '${DAYS} days' + (g::float8 / ?) * interval '${DAYS} days',
      -- Every call but the 3 % still live (in progress, ringing, initiated) has ended.
      case when rs < 0.97 then now() - interval '${DAYS} days' + (g::float8 / ?) * interval '${DAYS} days' + floor(rs * 300) * interval '1 second' end
    from typed`, [
    mainCalls / total, users.length - 1, Math.ceil(total / 5), total,
    pgArray(users.map((user) => user.id)), pgArray(users.map((user) => pgArray(user.assistantIds))), TURNS, total, total, total,
  ]);
}

/** A user with an API key and the assistants the seeded calls name, created through the API at `baseUrl`. */
export async function createBenchUser(knex: Knex, baseUrl: string): Promise<{ id: number; token: string; assistantIds: number[] }> {
  const user = await createUser(knex, { name: 'Bench', email: `bench-${randomUUID()}@example.test`, creditMicros: 0, creditKind: 'adjustment' });
  const { token } = await createApiKey(knex, user.id, 'bench');
  const assistantIds: number[] = [];
  for (let index = 0; index < ASSISTANTS; index++) {
    const type = index < INBOUND_ASSISTANTS ? 'inbound' : 'outbound';
    assistantIds.push((await createTestAssistant({ request: apiRequest(baseUrl) }, { token }, { name: `Assistant ${index}`, type })).id);
  }
  return { id: user.id, token, assistantIds };
}
