import type { Knex } from 'knex';

/** Columns of a call row as the tests set them (snake_case, as stored); the rest take the table's defaults. */
export type CallRow = Record<string, unknown>;

// The driver would write a JavaScript array as a PostgreSQL array; jsonb columns take the JSON text.
const JSON_COLUMNS = ['turns', 'variables', 'evaluation', 'webhook_response'];

function asColumns(values: CallRow): CallRow {
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key, JSON_COLUMNS.includes(key) && value !== null ? JSON.stringify(value) : value]));
}

/**
 * Inserts calls of `userId` directly, as the call workflow would have left them: a finished web call unless
 * `values` says otherwise. Returns the ids in the order given.
 */
export async function insertCalls(knex: Knex, userId: number, rows: CallRow[]): Promise<number[]> {
  if (rows.length === 0) return [];
  const inserted: { id: number }[] = await knex('calls').insert(rows.map((values) => ({
    user_id: userId,
    assistant_name: 'Test Assistant',
    type: 'web',
    status: 'completed',
    ...asColumns(values),
  }))).returning('id');
  return inserted.map((row) => row.id);
}

export async function insertCall(knex: Knex, userId: number, values: CallRow = {}): Promise<number> {
  const [id] = await insertCalls(knex, userId, [values]);
  return id as number;
}
