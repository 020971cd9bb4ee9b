import type { Knex } from 'knex';
import type { CallTurn } from '../../src/voice/hooks.ts';
import { callTurn, type MeasuredTurn } from '../../src/voice/turn-record.ts';

/**
 * Columns of a call row as the tests set them (snake_case, as stored); the rest take the table's defaults.
 * Turns only in the engine's own shape, so that a test cannot seed one the engine would never write.
 */
export type CallRow = Record<string, unknown> & { turns?: CallTurn[] };

/** A line of a conversation: who said what, from when to when (milliseconds after the answer). */
export type SpokenLine = Pick<MeasuredTurn, 'role' | 'text'> & { fromMs: number; toMs: number } & Partial<Pick<MeasuredTurn, 'interrupted' | 'metrics'>>;

/** The turns of a call answered at `answeredAt`, written by the engine's own writer as the media role stores them. */
export function spokenTurns(answeredAt: Date, lines: SpokenLine[]): CallTurn[] {
  const answer = { clockMs: 0, at: answeredAt };
  return lines.map(({ fromMs, toMs, ...line }) => callTurn(answer, { interrupted: false, metrics: {}, ...line, startedAt: fromMs, endedAt: toMs }));
}

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
