import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { historyFromJson } from '../support/history-json.ts';

// Recorded by record-histories.ts; each file is named after the workflow id it ran under.
const historiesDir = fileURLToPath(new URL('./histories/', import.meta.url));
const histories = fs.readdirSync(historiesDir).filter((file) => file.endsWith('.json')).sort();

describe('recorded workflow histories', () => {
  // Each replay starts and stops a worker, which the default runtime logs at INFO.
  beforeAll(() => {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  });

  it('cover each way a document ingestion ends, the main ways a call ends (with its post-call webhook delivered by a child, and retried by one after the first attempt), a campaign completed and stopped (and completed with its calls started without waiting), a retried webhook delivery (from its first attempt and after one made elsewhere, woken by retryNow, and signalled before retryNow existed), a conversation\'s end with its webhook (signalled by every message, reading its last message\'s time, and started after a start delay), and the self-check', () => {
    expect(histories).toEqual(expect.arrayContaining([
      'call-lifecycle-customer-hangup.json',
      'call-lifecycle-post-call-webhook.json',
      'call-lifecycle-post-call-webhook-inline.json',
      'campaign-completed.json',
      'campaign-pipelined-dial.json',
      'campaign-stopped.json',
      'conversation-ended-webhook.json',
      'conversation-timer-reads-last-message.json',
      'conversation-timer-start-delayed.json',
      'call-lifecycle-never-connected.json',
      'call-lifecycle-time-limit.json',
      'document-ingestion-active.json',
      'document-ingestion-cancelled.json',
      'document-ingestion-deleted.json',
      'document-ingestion-failed.json',
      'platform-self-check.json',
      'webhook-delivery-after-first-attempt.json',
      'webhook-delivery-retried.json',
      'webhook-delivery-signalled-before-retry-now.json',
      'webhook-delivery-woken.json',
    ]));
  });

  // A workflow that now takes other steps than its history recorded cannot finish the runs in flight when
  // it is deployed: the replayer throws a DeterminismViolationError.
  it.each(histories)('%s replays through today\'s workflow code', async (file) => {
    const history = historyFromJson(fs.readFileSync(path.join(historiesDir, file), 'utf8'));
    await Worker.runReplayHistory({ workflowBundle: { codePath: inject('workflowBundlePath') } }, history, path.basename(file, '.json'));
  });
});
