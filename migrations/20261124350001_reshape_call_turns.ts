import type { Knex } from 'knex';

/**
 * Call turns take the shape the API documents (src/voice/hooks.ts `CallTurn`): `started_at` / `ended_at` as
 * ISO 8601 UTC times with `start_offset_ms` / `end_offset_ms` from the answer, `interrupted` on the turn only,
 * and latencies named with their unit (`end_of_speech_to_first_audio_ms`, `stt_final_delay_ms`,
 * `llm_first_token_ms`, `tts_first_byte_ms`). Turns written before kept `startedAt` / `endedAt` as
 * milliseconds since the answer and `latencyMs`-style metrics with `interrupted` among them; they are
 * rewritten, their times placed from `answered_at` (or `created_at` for a call never marked answered).
 */
const ISO = `'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'`;

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    update calls set turns = reshaped.turns
    from (
      select c.id, jsonb_agg(jsonb_build_object(
          'role', t.turn->'role',
          'text', t.turn->'text',
          'started_at', to_char((o.base + o.start_ms * interval '1 millisecond') at time zone 'UTC', ${ISO}),
          'ended_at', to_char((o.base + o.end_ms * interval '1 millisecond') at time zone 'UTC', ${ISO}),
          'start_offset_ms', o.start_ms,
          'end_offset_ms', o.end_ms,
          'interrupted', coalesce(t.turn->'interrupted', t.turn->'metrics'->'interrupted', 'false'::jsonb),
          'metrics', jsonb_strip_nulls(jsonb_build_object(
            'end_of_speech_to_first_audio_ms', round((t.turn->'metrics'->>'latencyMs')::numeric),
            'stt_final_delay_ms', round((t.turn->'metrics'->>'sttDelayMs')::numeric),
            'llm_first_token_ms', round((t.turn->'metrics'->>'llmFirstTokenMs')::numeric),
            'tts_first_byte_ms', round((t.turn->'metrics'->>'ttsFirstByteMs')::numeric)))
        ) order by t.position) as turns
      from calls c
      cross join lateral jsonb_array_elements(c.turns) with ordinality as t(turn, position)
      cross join lateral (select coalesce(c.answered_at, c.created_at) as base) b
      cross join lateral (select b.base,
        round(case jsonb_typeof(t.turn->'startedAt') when 'number' then (t.turn->>'startedAt')::numeric
          else extract(epoch from (t.turn->>'startedAt')::timestamptz - b.base) * 1000 end) as start_ms,
        round(case jsonb_typeof(t.turn->'endedAt') when 'number' then (t.turn->>'endedAt')::numeric
          else extract(epoch from (t.turn->>'endedAt')::timestamptz - b.base) * 1000 end) as end_ms) o
      where c.turns->0->'startedAt' is not null
      group by c.id
    ) reshaped
    where calls.id = reshaped.id`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    update calls set turns = reshaped.turns
    from (
      select c.id, jsonb_agg(jsonb_build_object(
          'role', t.turn->'role',
          'text', t.turn->'text',
          'startedAt', t.turn->'start_offset_ms',
          'endedAt', t.turn->'end_offset_ms',
          'interrupted', t.turn->'interrupted',
          'metrics', jsonb_strip_nulls(jsonb_build_object(
            'latencyMs', t.turn->'metrics'->'end_of_speech_to_first_audio_ms',
            'sttDelayMs', t.turn->'metrics'->'stt_final_delay_ms',
            'llmFirstTokenMs', t.turn->'metrics'->'llm_first_token_ms',
            'ttsFirstByteMs', t.turn->'metrics'->'tts_first_byte_ms')) || jsonb_build_object('interrupted', t.turn->'interrupted')
        ) order by t.position) as turns
      from calls c
      cross join lateral jsonb_array_elements(c.turns) with ordinality as t(turn, position)
      where c.turns->0->'start_offset_ms' is not null
      group by c.id
    ) reshaped
    where calls.id = reshaped.id`);
}
