import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { withLogContext } from '../../src/lib/log-context.ts';
import { createLogger } from '../../src/logger.ts';

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger({ log: { level: 'info', pretty: false } }, sink), lines };
}

describe('log context', () => {
  it("adds the running work's ids to every line of a logger made before it, nested work keeping the outer ids", async () => {
    const { logger, lines } = capturingLogger();
    const child = logger.child({ component: 'webhooks' });
    await withLogContext({ workflowId: 'call-42', runId: 'r1' }, async () => {
      await Promise.resolve();
      child.info({ deliveryId: 7 }, 'delivered');
      withLogContext({ activityType: 'attemptWebhookDelivery' }, () => logger.warn('retrying'));
    });
    logger.info('outside');
    expect(lines.map(({ time: _time, level: _level, ...line }) => line)).toEqual([
      { workflowId: 'call-42', runId: 'r1', component: 'webhooks', deliveryId: 7, msg: 'delivered' },
      { workflowId: 'call-42', runId: 'r1', activityType: 'attemptWebhookDelivery', msg: 'retrying' },
      { msg: 'outside' },
    ]);
  });
});
