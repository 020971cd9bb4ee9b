import { WorkflowNotFoundError } from '@temporalio/client';
import { webhookWakeups } from '../lib/metrics.ts';
import type { Logger } from '../logger.ts';
import type { TemporalClient } from './client.ts';
import { workflowIds } from './names.ts';
import { webhookSignals } from './shared.ts';

/** How long Temporal gets to take the signals: the activity that sends them waits for them. */
const SIGNAL_DEADLINE_MS = 5_000;

/**
 * Tells the workflows of these webhook deliveries to make their next attempt now (`retryNow`), all at once, and
 * returns the deliveries that have no workflow running: it has ended (the delivery settled meanwhile) or has not
 * started yet. Any other failure is logged and left: the delivery's own timer still brings its next attempt.
 * Never throws.
 */
export async function signalWebhookRetryNow(temporal: Pick<TemporalClient, 'client'>, deliveryIds: readonly number[], logger: Logger): Promise<number[]> {
  const deadline = Date.now() + SIGNAL_DEADLINE_MS;
  const notRunning: number[] = [];
  await Promise.all(deliveryIds.map(async (deliveryId) => {
    try {
      const handle = temporal.client.workflow.getHandle(workflowIds.webhookDelivery(deliveryId));
      await temporal.client.withDeadline(deadline, () => handle.signal(webhookSignals.retryNow));
      webhookWakeups.inc({ outcome: 'signalled' });
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) {
        webhookWakeups.inc({ outcome: 'closed' });
        logger.info({ deliveryId }, 'webhook delivery workflow not running: wake-up dropped');
        notRunning.push(deliveryId);
        return;
      }
      webhookWakeups.inc({ outcome: 'failed' });
      logger.warn({ err: error, deliveryId }, 'could not wake a webhook delivery: it waits for its next attempt');
    }
  }));
  return notRunning;
}
