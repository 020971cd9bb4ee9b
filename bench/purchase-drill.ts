/**
 * Crash drill for buying and renewing numbers:
 *
 *   DATABASE_URL=$(bash scripts/setup-postgres.sh) npm run drill:purchases -- [--runs 20] [--period 4]
 *
 * Runs the Temporal dev server, the api role and the worker role as processes of their own (the worker is the
 * one killed, so the database must be a PostgreSQL server that several processes share), with a subscription
 * period of `--period` seconds. Each run buys a number for a new user (every fifth with a card that declines)
 * and SIGKILLs the worker at a random moment of the purchase, then starts a new one; between runs it waits a
 * random while, so renewals in progress are killed too. Then it lets the workflows settle and counts, over
 * the drill's own users: numbers charged twice for a period, numbers the carrier holds without a record that
 * holds them, purchases left pending, answered purchases whose number is not held, held numbers without a
 * carrier number. Every count but the purchases and renewals should be 0. Never part of `npm test`.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { parseArgs } from 'node:util';
import knexFactory from 'knex';
import { startCluster } from './cluster.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20' }, period: { type: 'string', default: '4' } } });
const runs = Number(values.runs);
const periodSeconds = Number(values.period);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cluster = await startCluster({ name: 'purchase drill', roles: ['api', 'worker'], env: { SUBSCRIPTION_PERIOD: `${periodSeconds}s` } });
let kills = 0;
const baseUrl = `${cluster.baseUrl}/api`;

async function call(method: string, route: string, options: { token?: string; body?: unknown } = {}) {
  const response = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { accept: 'application/json', 'content-type': 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  return { status: response.status, body: await response.json().catch(() => undefined) as any };
}

async function killWorker(): Promise<void> {
  kills++;
  await cluster.crash('worker');
}

const db = knexFactory({ client: 'pg', connection: cluster.databaseUrl });
const userIds: number[] = [];
const answers = new Map<number, number>();
const bought: number[] = [];
try {
  for (let run = 0; run < runs; run++) {
    const name = `drill-${randomBytes(6).toString('hex')}`;
    const registered = await call('POST', '/auth/register', { body: { name, email: `${name}@drill.example`, password: 'correct horse battery' } });
    if (registered.status !== 201) throw new Error(`register: HTTP ${registered.status} ${JSON.stringify(registered.body)}`);
    const token = registered.body.token as string;
    userIds.push(registered.body.user.id as number);
    await call('POST', '/user/payment-methods', { token, body: { payment_method: run % 5 === 4 ? 'pm_card_chargeDeclined' : 'pm_card_visa' } });
    const offers = await call('GET', '/user/phone-numbers/search?country_code=US', { token });
    const purchase = call('POST', '/user/phone-numbers/purchase', { token, body: { phone_number: offers.body.data[0].phone_number } });
    await sleep(randomInt(1500));
    await killWorker();
    const answer = await purchase;
    answers.set(answer.status, (answers.get(answer.status) ?? 0) + 1);
    if (answer.status === 201) bought.push(answer.body.data.id as number);
    // Renewals of the numbers bought so far run meanwhile; some of them are killed too.
    await sleep(randomInt(periodSeconds * 1000));
    if (run % 2 === 1) await killWorker();
  }
  // Three periods without kills: every workflow reaches a step it can be judged at.
  await sleep(periodSeconds * 3000);

  const numbers = db('phone_numbers').whereIn('user_id', userIds);
  const ids = await numbers.clone().pluck<number[]>('id');
  const count = async (query: Promise<unknown[]>) => (await query).length;
  const charged: { n: string }[] = await db('phone_number_charges').whereIn('phone_number_id', ids).where({ status: 'succeeded' })
    .select('phone_number_id', 'period').count<{ n: string }[]>('* as n').groupBy('phone_number_id', 'period');
  const paidTwice = await db('sandbox_payments').where({ status: 'succeeded' }).whereRaw("metadata->>'parley_purpose' = 'phone_number_subscription'")
    .whereIn(db.raw("(metadata->>'parley_phone_number_id')::bigint") as never, ids)
    .select(db.raw("metadata->>'parley_phone_number_id' as id, metadata->>'parley_period' as period")).groupByRaw('1, 2').havingRaw('count(*) > 1');
  const heldAtCarrier = await db('sandbox_phone_numbers').whereNull('released_at').whereIn('idempotency_key', ids.map((id) => `parley-phone-number-${id}`)).pluck<string[]>('idempotency_key');
  const heldHere = new Set((await numbers.clone().whereIn('status', ['pending', 'active', 'past_due']).pluck<number[]>('id')).map((id) => `parley-phone-number-${id}`));
  console.log(`runs ${runs}, worker SIGKILLs ${kills}, subscription period ${periodSeconds} s`);
  console.log(`purchase answers: ${[...answers].map(([status, n]) => `${status} × ${n}`).join(', ')}`);
  console.log(`periods paid: ${charged.length} (renewals: ${charged.length - bought.length})`);
  console.log(`charged twice for a period: ${charged.filter((row) => Number(row.n) > 1).length} (charge rows), ${paidTwice.length} (provider payments)`);
  console.log(`held by the carrier without a record that holds them: ${heldAtCarrier.filter((key) => !heldHere.has(key)).length}`);
  console.log(`purchases left pending: ${await count(numbers.clone().where({ status: 'pending' }))}`);
  console.log(`answered 201 but not held: ${await count(numbers.clone().whereIn('id', bought).whereNotIn('status', ['active', 'past_due']))}`);
  console.log(`held without a carrier number: ${await count(numbers.clone().whereIn('status', ['active', 'past_due']).whereNull('provider_number_id'))}`);
  console.log(`failed purchases still held by the carrier: ${await count(numbers.clone().where({ status: 'failed' }).whereIn('id', heldAtCarrier.map((key) => Number(key.split('-').at(-1)))))}`);
} finally {
  await db.destroy();
  await cluster.close();
}
