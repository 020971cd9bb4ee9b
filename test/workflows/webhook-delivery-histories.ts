/**
 * The webhook delivery workflow's scenarios for record-histories.ts: retried from its first attempt and after one
 * made elsewhere, woken by retryNow, and signalled while an older worker ran it.
 */
import type { WorkflowHandle } from '@temporalio/client';
import { webhookSignals, workflowTypes } from '../../src/temporal/shared.ts';
import type { Scenario } from './record-histories.ts';

/** Resolves once the run has started its `count`th timer: a wait is on. */
async function timersStarted(handle: WorkflowHandle, count: number): Promise<void> {
  while (((await handle.fetchHistory()).events ?? []).filter((event) => event.timerStartedEventAttributes).length < count) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const webhookDeliveryScenarios: Record<string, Scenario> = {
  'webhook-delivery-after-first-attempt': {
    stubs: {
      attemptWebhookDelivery: ({ attempt }) => Promise.resolve(attempt < 3 ? { outcome: 'retry' as const, delayMs: 100 } : { outcome: 'delivered' as const }),
    },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.webhookDelivery, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ deliveryId: 5, policy: { delaysMs: [100, 100, 100], maxRetryAfterMs: 1000 }, after: { attempts: 1, delayMs: 100 } }],
      });
      await handle.result();
      return handle;
    },
  },
  'webhook-delivery-retried': {
    stubs: {
      attemptWebhookDelivery: ({ attempt }) => Promise.resolve(attempt < 3 ? { outcome: 'retry' as const, delayMs: 100 } : { outcome: 'delivered' as const }),
    },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.webhookDelivery, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ deliveryId: 2, policy: { delaysMs: [100, 100, 100], maxRetryAfterMs: 1000 } }],
      });
      await handle.result();
      return handle;
    },
  },
  // Recorded after retryNow: both waits, the first attempt's (made elsewhere) and the second's, an hour long and
  // cut short by the signal once on.
  'webhook-delivery-woken': {
    stubs: {
      attemptWebhookDelivery: ({ attempt }) => Promise.resolve(attempt < 3 ? { outcome: 'retry' as const, delayMs: 3_600_000 } : { outcome: 'delivered' as const }),
    },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.webhookDelivery, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ deliveryId: 6, policy: { delaysMs: [3_600_000, 3_600_000, 3_600_000], maxRetryAfterMs: 3_600_000 }, after: { attempts: 1, delayMs: 3_600_000 } }],
      });
      for (const waits of [1, 2]) {
        await timersStarted(handle, waits);
        await handle.signal(webhookSignals.retryNow);
      }
      await handle.result();
      return handle;
    },
  },
  // Recorded with the workflow of before retryNow (`git show c68e10a^:workflows/webhook-delivery.ts`): a retryNow
  // sent while an older worker ran the delivery, which left it unhandled and waited its timer out. Today's code must
  // replay it as it ran (patched('webhook-retry-now')); recorded with today's workflow it would be woken instead.
  'webhook-delivery-signalled-before-retry-now': {
    stubs: {
      attemptWebhookDelivery: ({ attempt }) => Promise.resolve(attempt < 2 ? { outcome: 'retry' as const, delayMs: 1000 } : { outcome: 'delivered' as const }),
    },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.webhookDelivery, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ deliveryId: 7, policy: { delaysMs: [1000], maxRetryAfterMs: 1000 } }],
      });
      await timersStarted(handle, 1);
      await handle.signal(webhookSignals.retryNow);
      await handle.result();
      return handle;
    },
  },
};
