import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/lib/money.ts';
import { balanceMicros, chargeExpression, type LedgerEntryInput } from '../../src/billing/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

describe('charging within the balance', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  async function charge(input: LedgerEntryInput): Promise<number | null> {
    const { knex } = platform.database;
    const { rows } = await knex.raw<{ rows: { entry_id: number | null }[] }>('select ? as entry_id', [chargeExpression(knex, input)]);
    return rows[0]?.entry_id ?? null;
  }

  const entry = (userId: number, key: string, usd = 1): LedgerEntryInput =>
    ({ userId, amountMicros: usdToMicros(usd), kind: 'test_charge', idempotencyKey: `${key}-${userId}` });

  it('takes the amount once per key, and a retry returns the entry already written', async () => {
    const user = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const first = await charge(entry(user.id, 'retry'));
    expect(first).toEqual(expect.any(Number));
    expect(await charge(entry(user.id, 'retry'))).toBe(first);
    expect(await balanceMicros(platform.database.knex, user.id)).toBe(usdToMicros(4));
  });

  it('refuses, writing nothing, when the balance does not cover the amount', async () => {
    const user = await createTestUser(platform.database.knex, { balanceUsd: 0.5 });
    expect(await charge(entry(user.id, 'too-much'))).toBeNull();
    expect(await platform.database.knex('balance_transactions').where({ userId: user.id, kind: 'test_charge' })).toEqual([]);
    expect(await balanceMicros(platform.database.knex, user.id)).toBe(usdToMicros(0.5));
  });

  it('refuses a user who never had a balance', async () => {
    const user = await createTestUser(platform.database.knex);
    expect(await charge(entry(user.id, 'nothing', 0.01))).toBeNull();
  });

  it('never lets concurrent charges together overdraw', async () => {
    const user = await createTestUser(platform.database.knex, { balanceUsd: 4 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, index) => charge(entry(user.id, `race-${index}`))));
    expect(results.filter((id) => id !== null)).toHaveLength(4);
    expect(await balanceMicros(platform.database.knex, user.id)).toBe(0);
  });
});
