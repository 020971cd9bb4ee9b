import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { freePort } from '../support/ports.ts';

describe('health and readiness', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ worker: true });
  });
  afterAll(async () => {
    await platform.close();
  });

  it('answers liveness with {"status":"ok"}', async () => {
    const response = await platform.request('GET', '/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('is ready when the database and Temporal answer', async () => {
    const response = await platform.request('GET', '/ready');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok', checks: { database: 'ok', temporal: 'ok', embeddings: 'not configured: knowledge base search uses full text only' } });
  });

  it('runs the self-check workflow through a worker into the database when asked to go deep', async () => {
    const before = await platform.database.knex('platform_checks').count({ count: '*' }).first();
    const response = await platform.request('GET', '/ready?deep=true');
    expect(response.status).toBe(200);
    expect(response.body.checks).toEqual({ database: 'ok', temporal: 'ok', worker: 'ok', embeddings: 'not configured: knowledge base search uses full text only' });
    const after = await platform.database.knex('platform_checks').count({ count: '*' }).first();
    expect(Number(after?.count)).toBe(Number(before?.count) + 1);
  });

  it('carries a request id, echoing a sane one from the caller', async () => {
    const generated = await platform.request('GET', '/health');
    expect(generated.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const echoed = await platform.request('GET', '/health', { headers: { 'x-request-id': 'abc-123' } });
    expect(echoed.headers.get('x-request-id')).toBe('abc-123');
  });
});

describe('readiness when a dependency is down', () => {
  it('answers 503 naming Temporal when it cannot be reached', async () => {
    const platform = await startTestPlatform({ env: { TEMPORAL_ADDRESS: `127.0.0.1:${await freePort()}` } });
    try {
      const response = await platform.request('GET', '/ready');
      expect(response.status).toBe(503);
      expect(response.body.status).toBe('unavailable');
      expect(response.body.message).toBe('Not ready: temporal is down.');
      expect(response.body.checks.database).toBe('ok');
      expect(response.body.checks.temporal).toMatch(/^down: /);
      expect((await platform.request('GET', '/health')).status).toBe(200);
    } finally {
      await platform.close();
    }
  });

  it('answers 503 naming the database when it is gone', async () => {
    const platform = await startTestPlatform();
    try {
      await platform.database.knex.destroy();
      const response = await platform.request('GET', '/ready');
      expect(response.status).toBe(503);
      expect(response.body.message).toBe('Not ready: database is down.');
      expect(response.body.checks.temporal).toBe('ok');
    } finally {
      await platform.close().catch(() => undefined);
    }
  });
});
