import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forgetMediaNode, mediaLinesFree, reportMediaNode } from '../../src/billing/media-capacity.ts';
import { createLogger } from '../../src/logger.ts';
import { reportMediaLines } from '../../src/roles/media-lines.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';

/**
 * The media processes' lines as the database keeps them. On PostgreSQL every test file shares one database,
 * whose other media processes report lines too: the checks use a node of a size no test file has.
 */
describe('media capacity', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform();
  });
  afterAll(() => platform.close());
  const knex = () => platform.database.knex;
  const HUGE = 5_000_000;

  it('counts the free lines of the media processes that reported lately, and none of one whose report is stale', async () => {
    const id = `capacity-test-${process.pid}-${Date.now()}`;
    const before = await mediaLinesFree(knex()) ?? 0;
    await reportMediaNode(knex(), { id, maxCalls: HUGE, liveCalls: 1000 });
    expect(await mediaLinesFree(knex())).toBeGreaterThan(before + HUGE - 2000);
    await knex()('media_nodes').where({ id }).update({ reportedAt: new Date(Date.now() - 60_000) });
    expect(await mediaLinesFree(knex()) ?? 0).toBeLessThan(HUGE - 1000);
    await forgetMediaNode(knex(), id);
    expect(await knex()('media_nodes').where({ id })).toHaveLength(0);
  });

  it('a media process reports its lines at start, at once when told its calls changed (and at its next look otherwise), and withdraws them when it stops', async () => {
    let live = 0;
    const lines = await reportMediaLines(knex(), { maxCalls: HUGE, liveCalls: () => live, logger: createLogger({ log: { level: 'silent', pretty: false } }) });
    const mine = () => knex()('media_nodes').where({ maxCalls: HUGE }).first();
    expect(await mine()).toMatchObject({ maxCalls: HUGE, liveCalls: 0 });
    live = 3;
    await expect.poll(async () => (await mine())?.liveCalls, { timeout: 5000 }).toBe(3);
    await lines.stop();
    expect(await mine()).toBeUndefined();

    // Told of a change, it reports at once, long before its next look; a change during a report is reported after it.
    const told = await reportMediaLines(knex(), { maxCalls: HUGE, liveCalls: () => live, logger: createLogger({ log: { level: 'silent', pretty: false } }), lookMs: 60_000 });
    live = 5;
    told.changed();
    live = 6;
    told.changed();
    await expect.poll(async () => (await mine())?.liveCalls, { timeout: 5000, interval: 20 }).toBe(6);
    await told.stop();
    expect(await mine()).toBeUndefined();
  });
});
