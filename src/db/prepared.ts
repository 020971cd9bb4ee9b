import type { Knex } from 'knex';

/**
 * Runs a statement as a named prepared statement: each connection parses, analyses and plans its text once and
 * then only binds and executes it. For the large statements of a chat turn that work was most of their cost (on
 * the embedded PGlite the statement that accepts a message took 2.4-4 ms unnamed, 0.8-1.2 ms named; see
 * docs/decisions.md). A name must always stand for the same text: `pg` refuses one reused for another.
 */
export function prepared<T extends Knex.Raw>(name: string, statement: T): T {
  return statement.options({ name });
}
