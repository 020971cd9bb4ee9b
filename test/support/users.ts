import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { usdToMicros } from '../../src/lib/money.ts';
import { createApiKey } from '../../src/resources/api-keys/service.ts';
import { createUser } from '../../src/resources/users/service.ts';

export interface TestUser {
  id: number;
  name: string;
  email: string;
  password: string;
  /** An API key of this user. */
  token: string;
}

/** A fresh account of its own for each test, so tests never share data and can run in parallel. */
export async function createTestUser(knex: Knex, options: { balanceUsd?: number; name?: string } = {}): Promise<TestUser> {
  const email = `user-${randomUUID()}@example.test`;
  const password = 'correct horse battery';
  const name = options.name ?? 'Test User';
  const user = await createUser(knex, {
    name,
    email,
    password,
    creditMicros: options.balanceUsd === undefined ? 0 : usdToMicros(options.balanceUsd),
    creditKind: 'adjustment',
  });
  const { token } = await createApiKey(knex, user.id, 'test');
  return { id: user.id, name, email, password, token };
}
