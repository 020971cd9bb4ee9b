import type { Knex } from 'knex';

/**
 * Call counts kept by triggers, so the exact `total` of `GET /user/calls` is a sum over a few hundred rows
 * instead of a count over up to millions of calls (docs/decisions.md, "Counting the call list").
 *
 * `call_counts` holds one row per user and combination of the list's equality filters (status, type,
 * assistant, campaign; 0 stands for none): any mix of those filters is a sum over the user's combinations.
 * `call_month_counts` and `call_day_counts` hold the same per UTC month and day of `created_at`: a date range
 * sums its whole months and the days at its edges. Every row also keeps the smallest and largest call id it
 * counted, so the page is read from an index range on `id` (a call deleted or moved leaves the bounds as they
 * were: they stay bounds).
 *
 * The triggers are per statement with transition tables: seeding a million calls in one INSERT updates the
 * counts once, and an update that moves no call between combinations (a turn appended) writes nothing.
 */
const KEY = ['user_id', 'status', 'type', 'assistant_id', 'campaign_id'];
const PERIODS = {
  call_counts: undefined,
  call_month_counts: { column: 'month', of: "date_trunc('month', created_at at time zone 'UTC')::date" },
  call_day_counts: { column: 'day', of: "(created_at at time zone 'UTC')::date" },
} as const;
type CountTable = keyof typeof PERIODS;

const keyOf = (table: CountTable) => {
  const period = PERIODS[table];
  return period ? ['user_id', period.column, ...KEY.slice(1)] : KEY;
};

/** The counts of the calls in `source` (a table name or a subquery), grouped by `table`'s key. */
function grouped(source: string, table: CountTable): string {
  const period = PERIODS[table];
  const columns = `user_id, ${period ? `${period.of} as ${period.column}, ` : ''}status, type,
    coalesce(assistant_id, 0) as assistant_id, coalesce(campaign_id, 0) as campaign_id`;
  const positions = keyOf(table).map((_, index) => index + 1).join(', ');
  return `select ${columns}, count(*) as calls, min(id) as first_id, max(id) as last_id from ${source} as source group by ${positions}`;
}

function addCalls(source: string): string {
  return Object.keys(PERIODS).map((table) => `
    insert into ${table} as t (${keyOf(table as CountTable).join(', ')}, calls, first_id, last_id) ${grouped(source, table as CountTable)}
      on conflict (${keyOf(table as CountTable).join(', ')}) do update set calls = t.calls + excluded.calls,
        first_id = least(t.first_id, excluded.first_id), last_id = greatest(t.last_id, excluded.last_id);`).join('');
}

// Updates only: removing never inserts, so the cascade from a deleted user (which may remove the counts first)
// has nothing to write.
function removeCalls(source: string): string {
  return Object.keys(PERIODS).map((table) => `
    update ${table} as t set calls = t.calls - d.calls from (${grouped(source, table as CountTable)}) as d
      where ${keyOf(table as CountTable).map((column) => `t.${column} = d.${column}`).join(' and ')};`).join('');
}

const COUNTED = ['user_id', 'status', 'type', 'assistant_id', 'campaign_id', 'created_at'];
const changed = (side: 'o' | 'n') => `(select ${side}.* from old_calls o join new_calls n on n.id = o.id
  where (${COUNTED.map((column) => `o.${column}`).join(', ')}) is distinct from (${COUNTED.map((column) => `n.${column}`).join(', ')}))`;

const triggers = {
  insert: { referencing: 'new table as new_calls', body: addCalls('new_calls') },
  delete: { referencing: 'old table as old_calls', body: removeCalls('old_calls') },
  update: { referencing: 'old table as old_calls new table as new_calls', body: removeCalls(changed('o')) + addCalls(changed('n')) },
};

export async function up(knex: Knex): Promise<void> {
  for (const [table, period] of Object.entries(PERIODS)) {
    await knex.schema.createTable(table, (builder) => {
      builder.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
      if (period) builder.date(period.column).notNullable();
      builder.string('status', 24).notNullable();
      builder.string('type', 16).notNullable();
      builder.bigInteger('assistant_id').notNullable();
      builder.bigInteger('campaign_id').notNullable();
      builder.bigInteger('calls').notNullable();
      builder.bigInteger('first_id').notNullable();
      builder.bigInteger('last_id').notNullable();
      builder.primary(keyOf(table as CountTable));
    });
    // Room on each page, so a count updated in place stays beside its neighbours (a HOT update).
    await knex.raw(`alter table ${table} set (fillfactor = 70)`);
  }
  for (const [operation, { referencing, body }] of Object.entries(triggers)) {
    await knex.raw(`create function count_calls_on_${operation}() returns trigger language plpgsql as $$ begin ${body} return null; end $$`);
    await knex.raw(`create trigger calls_count_on_${operation} after ${operation} on calls referencing ${referencing}
      for each statement execute function count_calls_on_${operation}()`);
  }
  await knex.raw(addCalls('calls'));
}

export async function down(knex: Knex): Promise<void> {
  for (const operation of Object.keys(triggers)) {
    await knex.raw(`drop trigger if exists calls_count_on_${operation} on calls`);
    await knex.raw(`drop function if exists count_calls_on_${operation}()`);
  }
  for (const table of Object.keys(PERIODS).reverse()) await knex.schema.dropTable(table);
}
