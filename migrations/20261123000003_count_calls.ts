import type { Knex } from 'knex';

/**
 * Call counts kept by triggers, so the exact `total` of `GET /user/calls` is a sum over a few rows instead of
 * a count over up to millions of calls (docs/decisions.md, "Counting the call list").
 *
 * `call_counts` holds one row per user and combination of the list's equality filters (status, type,
 * assistant, campaign; 0 stands for none): any mix of those filters is a sum over the user's combinations.
 * `call_day_counts` holds the same per UTC day of `created_at`, with the smallest and largest call id of the
 * day's combination: a date range sums its days, and those ids bound the calls of the range, so the page is
 * read from an index range on `id` (a deleted call leaves the bounds as they were; they stay bounds).
 *
 * The triggers are per statement with transition tables: seeding a million calls in one INSERT updates the
 * counts once, and an update that moves no call between combinations (a turn appended) writes nothing.
 */
const KEY = ['user_id', 'status', 'type', 'assistant_id', 'campaign_id'];
const DAY_KEY = ['user_id', 'day', 'status', 'type', 'assistant_id', 'campaign_id'];

/** The grouped counts of the calls in `source` (a table name or a subquery), by `call_counts`'s key or the day key. */
function grouped(source: string, byDay: boolean): string {
  const day = byDay ? "(created_at at time zone 'UTC')::date as day, " : '';
  const bounds = byDay ? ', min(id) as first_id, max(id) as last_id' : '';
  return `select user_id, ${day}status, type, coalesce(assistant_id, 0) as assistant_id, coalesce(campaign_id, 0) as campaign_id,
    count(*) as calls${bounds} from ${source} as source group by ${byDay ? '1, 2, 3, 4, 5, 6' : '1, 2, 3, 4, 5'}`;
}

function addCalls(source: string): string {
  return `
    insert into call_counts as t (${KEY.join(', ')}, calls) ${grouped(source, false)}
      on conflict (${KEY.join(', ')}) do update set calls = t.calls + excluded.calls;
    insert into call_day_counts as t (${DAY_KEY.join(', ')}, calls, first_id, last_id) ${grouped(source, true)}
      on conflict (${DAY_KEY.join(', ')}) do update set calls = t.calls + excluded.calls,
        first_id = least(t.first_id, excluded.first_id), last_id = greatest(t.last_id, excluded.last_id);`;
}

// Updates only: removing never inserts, so the cascade from a deleted user (which may remove the counts first)
// has nothing to write.
function removeCalls(source: string): string {
  const matches = (columns: string[]) => columns.map((column) => `t.${column} = d.${column}`).join(' and ');
  return `
    update call_counts as t set calls = t.calls - d.calls from (${grouped(source, false)}) as d where ${matches(KEY)};
    update call_day_counts as t set calls = t.calls - d.calls from (${grouped(source, true)}) as d where ${matches(DAY_KEY)};`;
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
  const keyColumns = (table: Knex.CreateTableBuilder) => {
    table.bigInteger('user_id').notNullable().references('users.id').onDelete('CASCADE');
    table.string('status', 24).notNullable();
    table.string('type', 16).notNullable();
    table.bigInteger('assistant_id').notNullable();
    table.bigInteger('campaign_id').notNullable();
    table.bigInteger('calls').notNullable();
  };
  await knex.schema.createTable('call_counts', (table) => {
    keyColumns(table);
    table.primary(KEY);
  });
  await knex.schema.createTable('call_day_counts', (table) => {
    keyColumns(table);
    table.date('day').notNullable();
    table.bigInteger('first_id').notNullable();
    table.bigInteger('last_id').notNullable();
    table.primary(DAY_KEY);
  });
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
  await knex.schema.dropTable('call_day_counts');
  await knex.schema.dropTable('call_counts');
}
