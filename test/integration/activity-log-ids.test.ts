import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';
import { describe, expect, inject, it } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { createTemporalClient } from '../../src/temporal/client.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { runSelfCheck } from '../../src/temporal/starters.ts';
import { startWorker } from '../../src/temporal/worker.ts';
import { testConfig } from '../support/platform.ts';

/**
 * An activity logs through a logger made before any workflow ran (as createActivities' are); the worker
 * (temporal/worker.ts) puts the workflow's ids, the activity's type and its attempt on those lines.
 */
describe("an activity's log lines", () => {
  it('carry the workflow id, run id, activity type and attempt', async () => {
    const config = await testConfig();
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ log: { level: 'info', pretty: false } }, new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    }));
    const activities = {
      recordSelfCheck: async ({ checkId }: { checkId: string }) => {
        await Promise.resolve();
        logger.info({ checkId }, 'recorded the check');
        return { checkId, completedAt: new Date().toISOString() };
      },
    };
    const worker = await startWorker({ config, address: config.temporal.address ?? '', activities, logger, workflowBundlePath: inject('workflowBundlePath') });
    const temporal = createTemporalClient(config, config.temporal.address ?? '');
    try {
      const checkId = randomUUID();
      await runSelfCheck(temporal, checkId);
      const line = lines.find((entry) => entry.msg === 'recorded the check');
      expect(line).toMatchObject({
        checkId, workflowId: workflowIds.selfCheck(checkId), runId: expect.stringMatching(/^[0-9a-f-]{36}$/), activityType: 'recordSelfCheck', attempt: 1,
      });
    } finally {
      await temporal.close();
      await worker.stop();
    }
  });
});
