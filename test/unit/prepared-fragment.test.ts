import knexFactory from 'knex';
import { describe, expect, it, vi } from 'vitest';
import { fragment } from '../../src/db/prepared.ts';

describe('a statement fragment', () => {
  const knex = knexFactory({ client: 'pg' });

  it('is compiled once per knex instance and then answered as the same text', () => {
    const build = vi.fn(() => knex('assistants as a').where('a.id', knex.raw('c.assistant_id')).select('a.name'));
    const first = fragment(knex, 'test-name-by-c', build);
    expect(first).toBe('select "a"."name" from "assistants" as "a" where "a"."id" = c.assistant_id');
    expect(fragment(knex, 'test-name-by-c', build)).toBe(first);
    expect(build).toHaveBeenCalledTimes(1);
    fragment(knexFactory({ client: 'pg' }), 'test-name-by-c', build);
    expect(build).toHaveBeenCalledTimes(2);
  });

  it('refuses a part with values of its own, which the embedding statement would bind with its own', () => {
    expect(() => fragment(knex, 'test-with-value', () => knex('assistants').where({ id: 1 }))).toThrow(/no values/);
    expect(() => fragment(knex, 'test-with-placeholder', () => knex.raw("select '?'"))).toThrow(/no values/);
  });
});
