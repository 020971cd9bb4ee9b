import type { Knex } from 'knex';
import { describe, expect, it } from 'vitest';
import { forgetConversation, rememberConversation, rememberedConversation, type RememberedConversation } from '../../src/resources/conversations/early-reply.ts';

/** Each test its own memory: the memory is kept per database handle. */
const handle = () => ({}) as Knex;
const conversation = (content: string): RememberedConversation => ({
  assistantUuid: 'a', type: 'widget', variables: {}, history: [{ role: 'user', content }],
});

describe("what a process remembers of its conversations, to send their model requests early", () => {
  it('keeps at most 1,000 conversations, forgetting the one remembered longest ago', () => {
    const knex = handle();
    for (let i = 0; i < 1_001; i++) rememberConversation(knex, `c${i}`, conversation('hi'));
    expect(rememberedConversation(knex, 'c0')).toBeUndefined();
    expect(rememberedConversation(knex, 'c1')).toEqual(conversation('hi'));
    // Remembering one again makes it the newest.
    rememberConversation(knex, 'c1', conversation('again'));
    rememberConversation(knex, 'new', conversation('hi'));
    expect(rememberedConversation(knex, 'c1')).toEqual(conversation('again'));
    expect(rememberedConversation(knex, 'c2')).toBeUndefined();
  });

  it('keeps at most 4 M characters of history in all, and no conversation of more than 40,000', () => {
    const knex = handle();
    rememberConversation(knex, 'long', conversation('x'.repeat(40_001)));
    expect(rememberedConversation(knex, 'long')).toBeUndefined();
    for (let i = 0; i < 101; i++) rememberConversation(knex, `c${i}`, conversation('x'.repeat(40_000)));
    expect(rememberedConversation(knex, 'c0')).toBeUndefined();
    expect(rememberedConversation(knex, 'c1')).toBeDefined();
    // Forgetting gives its characters back.
    forgetConversation(knex, 'c1');
    rememberConversation(knex, 'one more', conversation('x'.repeat(40_000)));
    expect(rememberedConversation(knex, 'c2')).toBeDefined();
  });

  it('keeps a conversation marked as written to by other processes marked, until it is forgotten', () => {
    const knex = handle();
    rememberConversation(knex, 'shared', undefined);
    rememberConversation(knex, 'shared', conversation('hi'));
    expect(rememberedConversation(knex, 'shared')).toBeUndefined();
    forgetConversation(knex, 'shared');
    rememberConversation(knex, 'shared', conversation('hi'));
    expect(rememberedConversation(knex, 'shared')).toEqual(conversation('hi'));
  });
});
