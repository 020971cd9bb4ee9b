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

const fragments = new WeakMap<Knex, Map<string, string>>();

/**
 * The SQL text of a part of a statement with no values of its own (a subquery over the statement's columns, say),
 * compiled once per knex instance and then embedded as text: a hot statement that took it as a builder compiled
 * the builder again on every run, which was most of the time knex spent on a chat turn. `name` must always stand
 * for the same part.
 */
export function fragment(knex: Knex, name: string, build: () => Knex.QueryBuilder | Knex.Raw): string {
  let compiled = fragments.get(knex);
  if (!compiled) fragments.set(knex, compiled = new Map<string, string>());
  let text = compiled.get(name);
  if (text === undefined) {
    const { sql, bindings } = build().toSQL();
    // A value or a placeholder in the text would be bound by the embedding statement's values.
    if (bindings.length > 0 || sql.includes('?')) throw new Error(`The fragment ${name} must have no values and no '?'`);
    compiled.set(name, text = sql);
  }
  return text;
}
