import type { Knex } from 'knex';

/**
 * The console overview's figures per user and UTC day, kept by triggers in the transaction of each write, so
 * `GET /user/calls/stats` reads a few rows per day instead of a month of calls' turns and ledger entries
 * (docs/decisions.md, "The console"):
 * - `call_day_seconds`: the calls' `duration` summed by the day of `created_at` (set when a call is finalized);
 * - `call_day_latencies`: how many assistant replies had each caller-felt latency
 *   (`end_of_speech_to_first_audio_ms`, whole milliseconds) by the day of the call's `created_at`: exact
 *   percentiles come from these counts, and a day holds at most one row per distinct latency;
 * - `ledger_day_spend`: the ledger's debits summed by the day of the entry (the ledger is append-only).
 * The call triggers are per statement with transition tables, like the call counts
 * (20261123000005_count_calls.ts): an update that changes none of the calls' owner, day, duration or turns
 * writes nothing, and appending a turn writes only the difference it makes (one reply's latency).
 */
const LATENCY = 'end_of_speech_to_first_audio_ms';
const DAY = "(created_at at time zone 'UTC')::date";

/** One row per user, day and latency of the assistant replies of the calls in `source`, with how many. */
const latencies = (source: string) => `
  select source.user_id, (source.created_at at time zone 'UTC')::date as day,
    round((turn.value->'metrics'->>'${LATENCY}')::float8)::bigint as latency_ms, count(*)::bigint as replies
  from ${source} as source cross join lateral jsonb_array_elements(source.turns) as turn(value)
  where jsonb_typeof(turn.value->'metrics'->'${LATENCY}') = 'number'
  group by 1, 2, 3`;

const seconds = (source: string) => `select user_id, ${DAY} as day, sum(duration)::bigint as seconds from ${source} as source group by 1, 2`;

/**
 * Applies `deltas` (rows of `key` columns and a signed `value`) to `table`: increases are upserted, decreases only
 * update (so the cascade from a deleted user, which may remove these rows first, has nothing to write).
 */
function apply(table: string, key: string[], value: string, deltas: string): string {
  const matches = key.map((column) => `t.${column} = d.${column}`).join(' and ');
  return `
    with d as (select ${key.join(', ')}, sum(${value})::bigint as ${value} from (${deltas}) as parts group by ${key.join(', ')} having sum(${value}) <> 0),
      decreased as (update ${table} as t set ${value} = t.${value} + d.${value} from d where d.${value} < 0 and ${matches} returning 1)
    insert into ${table} as t (${key.join(', ')}, ${value}) select ${key.join(', ')}, ${value} from d where ${value} > 0 order by ${key.join(', ')}
      on conflict (${key.join(', ')}) do update set ${value} = t.${value} + excluded.${value};`;
}

const LATENCY_KEY = ['user_id', 'day', 'latency_ms'];
const SECONDS_KEY = ['user_id', 'day'];
const negated = (rows: string, value: string, key: string[]) => `select ${key.join(', ')}, -${value} as ${value} from (${rows}) as removed`;

/** The rollups' change when the calls `removed` are replaced by the calls `added` (either may be empty). */
function change(added: string | undefined, removed: string | undefined): string {
  const parts = (rows: (source: string) => string, value: string, key: string[]) =>
    [added ? rows(added) : undefined, removed ? negated(rows(removed), value, key) : undefined].filter(Boolean).join(' union all ');
  return apply('call_day_latencies', LATENCY_KEY, 'replies', parts(latencies, 'replies', LATENCY_KEY))
    + apply('call_day_seconds', SECONDS_KEY, 'seconds', parts(seconds, 'seconds', SECONDS_KEY));
}

const ROLLED_UP = ['user_id', 'created_at', 'duration', 'turns'];
const changed = (side: 'o' | 'n') => `(select ${side}.* from old_calls o join new_calls n on n.id = o.id
  where (${ROLLED_UP.map((column) => `o.${column}`).join(', ')}) is distinct from (${ROLLED_UP.map((column) => `n.${column}`).join(', ')}))`;

const triggers = {
  insert: { referencing: 'new table as new_calls', body: change('new_calls', undefined) },
  delete: { referencing: 'old table as old_calls', body: change(undefined, 'old_calls') },
  update: { referencing: 'old table as old_calls new table as new_calls', body: change(changed('n'), changed('o')) },
};

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('call_day_latencies', (table) => {
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.date('day').notNullable();
    table.bigInteger('latency_ms').notNullable();
    table.bigInteger('replies').notNullable();
    table.primary(LATENCY_KEY);
  });
  await knex.schema.createTable('call_day_seconds', (table) => {
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.date('day').notNullable();
    table.bigInteger('seconds').notNullable();
    table.primary(SECONDS_KEY);
  });
  await knex.schema.createTable('ledger_day_spend', (table) => {
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.date('day').notNullable();
    table.bigInteger('micros').notNullable();
    table.primary(['user_id', 'day']);
  });
  // Room on each page, so a figure updated in place stays beside its neighbours (a HOT update).
  for (const table of ['call_day_latencies', 'call_day_seconds', 'ledger_day_spend']) await knex.raw(`alter table ${table} set (fillfactor = 70)`);

  for (const [operation, { referencing, body }] of Object.entries(triggers)) {
    await knex.raw(`create function roll_up_calls_on_${operation}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`);
    await knex.raw(`create trigger calls_roll_up_on_${operation} after ${operation} on calls referencing ${referencing}
      for each statement execute function roll_up_calls_on_${operation}()`);
  }
  const spend = (source: string) => `
    insert into ledger_day_spend as t (user_id, day, micros)
      select user_id, ${DAY}, -sum(amount_micros)::bigint from ${source} where amount_micros < 0 group by 1, 2 order by 1, 2
      on conflict (user_id, day) do update set micros = t.micros + excluded.micros;`;
  await knex.raw(`create function roll_up_ledger_on_insert() returns trigger language plpgsql as $$ begin ${spend('new_entries')} return null; end $$`);
  await knex.raw(`create trigger balance_transactions_roll_up after insert on balance_transactions referencing new table as new_entries
    for each statement execute function roll_up_ledger_on_insert()`);

  await knex.raw(change('calls', undefined));
  await knex.raw(spend('balance_transactions'));
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('drop trigger if exists balance_transactions_roll_up on balance_transactions');
  await knex.raw('drop function if exists roll_up_ledger_on_insert()');
  for (const operation of Object.keys(triggers)) {
    await knex.raw(`drop trigger if exists calls_roll_up_on_${operation} on calls`);
    await knex.raw(`drop function if exists roll_up_calls_on_${operation}()`);
  }
  for (const table of ['ledger_day_spend', 'call_day_seconds', 'call_day_latencies']) await knex.schema.dropTable(table);
}
