import { Writable } from 'node:stream';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usdToMicros } from '../../src/lib/money.ts';
import { recordEntry } from '../../src/billing/ledger.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser } from '../support/users.ts';

describe('GET /api/user/me', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());

  it('reports the balance as the exact sum of the ledger, counting a retried entry once', async () => {
    const user = await createTestUser(platform.database.knex, { balanceUsd: 10 });
    const entries = [
      { amountMicros: usdToMicros(0.1), idempotencyKey: `a-${user.id}` },
      { amountMicros: usdToMicros(0.2), idempotencyKey: `b-${user.id}` },
      { amountMicros: -usdToMicros(0.01), idempotencyKey: `c-${user.id}` },
      { amountMicros: -usdToMicros(0.01), idempotencyKey: `c-${user.id}` },
    ];
    for (const entry of entries) {
      await recordEntry(platform.database.knex, { userId: user.id, kind: 'adjustment', reference: 'test', ...entry });
    }
    const response = await platform.request('GET', '/user/me', { token: user.token });
    expect(response.status).toBe(200);
    // Floating point would give 10.290000000000001; micro-dollars keep it exact.
    expect(response.body).toEqual({ name: 'Test User', email: user.email, total_balance: 10.29 });
  });

  it('keeps the running balance equal to the sum of the ledger', async () => {
    const user = await createTestUser(platform.database.knex, { balanceUsd: 3 });
    for (const [index, amount] of [0.5, -1.25, 0.000001, -0.3].entries()) {
      await recordEntry(platform.database.knex, { userId: user.id, amountMicros: usdToMicros(amount), kind: 'adjustment', idempotencyKey: `sum-${user.id}-${index}` });
    }
    const ledger = await platform.database.knex('balance_transactions').where({ userId: user.id }).sum({ total: 'amount_micros' }).first();
    const running = await platform.database.knex('user_balances').where({ userId: user.id }).first();
    expect(Number(ledger?.total)).toBe(1_950_001);
    expect(Number(running.micros)).toBe(1_950_001);
    expect((await platform.request('GET', '/user/me', { token: user.token })).body.total_balance).toBe(1.950001);
  });

  it('reports 0 for a new account', async () => {
    const user = await createTestUser(platform.database.knex);
    expect((await platform.request('GET', '/user/me', { token: user.token })).body.total_balance).toBe(0);
  });
});

describe('rate limiting per credential', () => {
  it('answers 429 with Retry-After past RATE_LIMIT_PER_MINUTE, for that credential only', async () => {
    const platform = await startTestPlatform({ env: { RATE_LIMIT_PER_MINUTE: '3' } });
    try {
      const user = await createTestUser(platform.database.knex);
      const other = await createTestUser(platform.database.knex);
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await platform.request('GET', '/user/me', { token: user.token })).status);
      expect(statuses).toEqual([200, 200, 200, 429]);
      const limited = await platform.request('GET', '/user/me', { token: user.token });
      expect(limited.body).toEqual({ message: 'Too Many Attempts.', retry_after: expect.any(Number) });
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect((await platform.request('GET', '/user/me', { token: other.token })).status).toBe(200);
    } finally {
      await platform.close();
    }
  });
});

describe('CORS', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { CORS_ORIGINS: 'https://dashboard.example' } });
  });
  afterAll(() => platform.close());

  const preflight = (path: string, origin: string) => fetch(`${platform.baseUrl}/api${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
  });

  it('lets the configured origins call the authenticated API, and no others', async () => {
    const allowed = await preflight('/user/api-keys', 'https://dashboard.example');
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://dashboard.example');
    const refused = await preflight('/user/api-keys', 'https://evil.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('lets any origin call the conversation endpoints', async () => {
    const response = await preflight('/conversations', 'https://any-shop.example');
    expect(response.headers.get('access-control-allow-origin')).toBe('https://any-shop.example');
  });
});

describe('unexpected errors', () => {
  it('answer 500 {"message":"Server Error"} with the request id, and log the details with their stack under it', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const platform = await startTestPlatform({ logger: pino({ level: 'error' }, sink) });
    const user = await createTestUser(platform.database.knex);
    try {
      await platform.database.knex.destroy();
      const response = await platform.request('GET', '/user/me', { token: user.token, headers: { 'x-request-id': 'trace-me-500' } });
      expect(response.status).toBe(500);
      expect(response.body).toEqual({ message: 'Server Error', request_id: 'trace-me-500' });
      expect(response.headers.get('x-request-id')).toBe('trace-me-500');
      const logged = lines.map((line) => JSON.parse(line) as { requestId?: string; err?: { message: string; stack: string }; msg: string });
      const entry = logged.find((line) => line.msg === 'unexpected error');
      expect(entry?.requestId).toBe('trace-me-500');
      expect(entry?.err?.message).toBeTruthy();
      expect(entry?.err?.stack).toContain(entry?.err?.message);
      expect(response.text).not.toContain(entry?.err?.message ?? '-');
    } finally {
      await platform.close().catch(() => undefined);
    }
  });

  it('answers unknown paths with 404 in the message shape', async () => {
    const platform = await startTestPlatform();
    try {
      const response = await platform.request('GET', '/no/such/route');
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ message: 'Not Found.' });
    } finally {
      await platform.close();
    }
  });

  it('answers a method a known path does not serve with 405 in the message shape, as Laravel words it', async () => {
    const platform = await startTestPlatform();
    try {
      const response = await platform.request('PATCH', '/user/tools');
      expect(response.status).toBe(405);
      expect(response.body).toEqual({ message: 'The PATCH method is not supported for route api/user/tools. Supported methods: GET, POST.' });
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
      expect(response.headers.get('content-type')).toContain('application/json');

      // A path spelled out in full is not its template sibling's: PUT /user/phone-numbers/search is not
      // PUT /user/phone-numbers/{id} with an id that is not one, and its OPTIONS lists its own methods only.
      const shadowed = await platform.request('PUT', '/user/phone-numbers/search', { body: { name: 'x' } });
      expect(shadowed.status).toBe(405);
      expect(shadowed.body).toEqual({ message: 'The PUT method is not supported for route api/user/phone-numbers/search. Supported methods: GET.' });
      expect((await platform.request('PUT', '/user/campaigns/update-status', { body: {} })).status).toBe(405);
      const options = await fetch(`${platform.baseUrl}/api/user/payment-methods/setup-intent`, { method: 'OPTIONS' });
      expect(options.headers.get('allow')).toBe('POST');
      expect((await fetch(`${platform.baseUrl}/api/user/payment-methods/12`, { method: 'OPTIONS' })).headers.get('allow')).toBe('DELETE');
    } finally {
      await platform.close();
    }
  });
});
