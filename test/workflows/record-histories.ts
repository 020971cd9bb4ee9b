/**
 * Records the workflow histories that replay.test.ts runs through today's workflow code:
 *
 *   TEMPORAL_CLI=/path/to/temporal node test/workflows/record-histories.ts [scenario ...]
 *
 * (the CLI is found as the platform finds it when TEMPORAL_CLI is unset). Named scenarios alone are recorded
 * when given, so adding one leaves the others' files as they were. Starts a Temporal dev server of its
 * own, runs each scenario below on a worker with stub activities, and writes the scenario's history to
 * test/workflows/histories/<scenario>.json, the scenario's name being its workflow id.
 *
 * A history stands for the runs in flight when the workflow code changes: the replay test proves today's
 * code can still finish them. Recording again replaces the files, so do it only on purpose, and keep a
 * copy of an old history under another name while runs of the old code may still be in flight (the
 * replay test reads every file of the folder).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ApplicationFailure } from '@temporalio/activity';
import type { WorkflowHandle } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { Activities } from '../../activities/index.ts';
import { loadConfig } from '../../src/config.ts';
import { createLogger } from '../../src/logger.ts';
import { createTemporalClient, type TemporalClient } from '../../src/temporal/client.ts';
import { ensureTemporalCli, startTemporalDevServer } from '../../src/temporal/dev-server.ts';
import { callSignals, campaignSignals, conversationSignals, workflowTypes } from '../../src/temporal/shared.ts';
import { startWorker, workflowsPath } from '../../src/temporal/worker.ts';
import { historyToJson } from '../support/history-json.ts';
import { freePort } from '../support/ports.ts';
import { heartbeatUntilCancelled, stubActivities } from '../support/stub-activities.ts';
import { webhookDeliveryScenarios } from './webhook-delivery-histories.ts';

const historiesDir = fileURLToPath(new URL('./histories/', import.meta.url));
const logger = createLogger({ log: { level: 'info', pretty: false } });

const steps = {
  acquireDocumentSource: () => Promise.resolve({ sources: 1, skipped: 0 }),
  extractDocumentText: () => Promise.resolve({ sections: 2, characters: 300 }),
  chunkDocumentText: () => Promise.resolve({ chunks: 2 }),
  embedDocumentChunks: () => Promise.resolve({ embedded: 2 }),
  finishDocument: () => Promise.resolve(),
  discardDocumentWork: () => Promise.resolve(),
} satisfies Partial<Activities>;

export interface Scenario {
  stubs: Partial<Activities>;
  /** Starts the workflow with `workflowId` and drives it to its end. */
  run(temporal: TemporalClient, workflowId: string): Promise<WorkflowHandle>;
}

async function ingestDocument(temporal: TemporalClient, workflowId: string): Promise<WorkflowHandle> {
  const handle = await temporal.client.workflow.start(workflowTypes.documentIngestion, {
    taskQueue: temporal.taskQueue,
    workflowId,
    args: [{ documentId: 1 }],
  });
  await handle.result();
  return handle;
}

const acquiring = Promise.withResolvers<void>();
const conversationEnding = Promise.withResolvers<void>();

const callSteps = {
  prepareCall: () => Promise.resolve({ outcome: 'ready' as const, maxSeconds: 1, phone: false, dial: false, endCallOnVoicemail: true }),
  markAnswered: () => Promise.resolve(),
  requestHangup: () => Promise.resolve('requested' as const),
  finalizeCall: ({ reason }) => Promise.resolve({ status: reason === 'customer_hangup' ? 'ended_by_customer' as const : 'completed' as const, evaluate: true }),
  evaluateCall: () => Promise.resolve({ evaluated: true }),
} satisfies Partial<Activities>;

/** A web call answered at once; `end` reports its end, or leaves it to the time limit when absent. */
function webCall(end?: { reason: string }): Scenario['run'] {
  return async (temporal, workflowId) => {
    const handle = await temporal.client.workflow.start(workflowTypes.callLifecycle, {
      taskQueue: temporal.taskQueue,
      workflowId,
      args: [{ callId: 1, timing: { connectTimeoutSeconds: 1, ringTimeoutSeconds: 1, graceSeconds: 1, hangupWaitSeconds: 1 } }],
    });
    await handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    if (end) await handle.signal(callSignals.callEnded, { reason: end.reason, at: new Date().toISOString() });
    await handle.result();
    return handle;
  };
}

/**
 * A campaign of `leads` leads dialed one at a time, each completed by its first call; a call lasts as long as its
 * `prepareCall` (until `hold` resolves, when given), then ends refused.
 */
function campaignSteps(leads: number, firstCallId: number, hold?: { entered: () => void; released: Promise<void> }) {
  const pending = Array.from({ length: leads }, (_, index) => index + 1);
  let status = 'in-progress';
  let calls = 0;
  let open = leads;
  return {
    stop: () => {
      status = 'stopped';
    },
    stubs: {
      campaignRound: ({ following, settle = [] }) => {
        open -= settle.length;
        return Promise.resolve({
          campaign: { status, maxCallsInParallel: 1, markCompleteWhenNoLeads: true },
          windowOpensAt: null,
          windowNeverOpens: false,
          due: following.length === 0 ? pending.slice(0, 1).map((leadId) => ({ leadId, attempts: 0 })) : [],
          nextDueAt: null,
          open,
          settled: [],
          overdue: [],
        });
      },
      placeLeadCalls: ({ leads: due }) => Promise.resolve({
        outcomes: due.map(({ leadId }) => {
          pending.splice(pending.indexOf(leadId), 1);
          return { outcome: 'placed' as const, callId: firstCallId + calls++, userId: 1, assistantId: 1 };
        }),
      }),
      prepareCall: async () => {
        if (hold) {
          hold.entered();
          await hold.released;
        }
        return { outcome: 'refused' as const, reason: 'insufficient_balance' as const };
      },
      finalizeCall: () => Promise.resolve({ status: 'failed' as const, evaluate: false }),
      finishCampaign: () => Promise.resolve(),
    } satisfies Partial<Activities>,
  };
}

const campaignCompleted = campaignSteps(2, 101);
const campaignPipelined = campaignSteps(2, 301);
const stopping = { entered: Promise.withResolvers<void>(), released: Promise.withResolvers<void>() };
const campaignStopped = campaignSteps(2, 201, { entered: () => stopping.entered.resolve(), released: stopping.released.promise });

const scenarios: Record<string, Scenario> = {
  'campaign-completed': {
    stubs: campaignCompleted.stubs,
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.campaign, { taskQueue: temporal.taskQueue, workflowId, args: [{ campaignId: 1 }] });
      await handle.result();
      return handle;
    },
  },
  // Recorded after calls were started without waiting for each start, and a full round waited for a change.
  'campaign-pipelined-dial': {
    stubs: campaignPipelined.stubs,
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.campaign, { taskQueue: temporal.taskQueue, workflowId, args: [{ campaignId: 3 }] });
      await handle.result();
      return handle;
    },
  },
  'campaign-stopped': {
    stubs: campaignStopped.stubs,
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.campaign, { taskQueue: temporal.taskQueue, workflowId, args: [{ campaignId: 2 }] });
      await stopping.entered.promise;
      campaignStopped.stop();
      await handle.signal(campaignSignals.stop);
      // The call in progress (the first, call-201) is asked to end; once it has heard that, its step is let go.
      const call = temporal.client.workflow.getHandle('call-201');
      const heard = async () => ((await call.fetchHistory()).events ?? []).some((event) => event.workflowExecutionSignaledEventAttributes?.signalName === callSignals.endCall);
      while (!(await heard())) await new Promise((resolve) => setTimeout(resolve, 100));
      stopping.released.resolve();
      await handle.result();
      return handle;
    },
  },
  'document-ingestion-active': { stubs: steps, run: ingestDocument },
  'document-ingestion-failed': {
    stubs: { ...steps, extractDocumentText: () => Promise.reject(ApplicationFailure.nonRetryable('No text could be extracted from the file.', 'rejected')) },
    run: ingestDocument,
  },
  'document-ingestion-deleted': {
    stubs: { ...steps, chunkDocumentText: () => Promise.reject(ApplicationFailure.nonRetryable('Document 1 no longer exists.', 'not_found')) },
    run: ingestDocument,
  },
  'document-ingestion-cancelled': {
    stubs: {
      ...steps,
      acquireDocumentSource: () => {
        acquiring.resolve();
        return heartbeatUntilCancelled();
      },
    },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.documentIngestion, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ documentId: 1 }],
      });
      await acquiring.promise;
      await handle.cancel();
      await handle.result().catch(() => undefined);
      return handle;
    },
  },
  'call-lifecycle-customer-hangup': { stubs: callSteps, run: webCall({ reason: 'customer_hangup' }) },
  'call-lifecycle-post-call-webhook': {
    stubs: {
      ...callSteps,
      finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: true, webhook: true as const }),
      queuePostCallWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId: 1, eventId: '00000000-0000-4000-8000-000000000001', userId: 1, assistantId: 1 }),
      attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
    },
    run: webCall({ reason: 'customer_hangup' }),
  },
  // The first attempt made by the activity that queued the event, and retries asked for: the retries' child.
  'call-lifecycle-post-call-webhook-inline': {
    stubs: {
      ...callSteps,
      finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: true, webhook: true as const }),
      queuePostCallWebhook: () => Promise.resolve({
        outcome: 'queued' as const, deliveryId: 4, eventId: '00000000-0000-4000-8000-000000000004', userId: 1, assistantId: 1, first: { outcome: 'retry' as const, delayMs: 100 },
      }),
      attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
    },
    run: webCall({ reason: 'customer_hangup' }),
  },
  ...webhookDeliveryScenarios,
  // Recorded when every message signalled the run; recorded again today it takes the path of the scenario below.
  'conversation-ended-webhook': {
    stubs: {
      endQuietConversation: () => Promise.resolve({ outcome: 'ended' as const, webhook: true, evaluate: true }),
      endConversation: () => Promise.resolve({ outcome: 'ended' as const, webhook: true, evaluate: true }),
      evaluateConversation: () => Promise.resolve({ evaluated: true }),
      queueConversationEndedWebhook: () => Promise.resolve({ outcome: 'queued' as const, deliveryId: 3, eventId: '00000000-0000-4000-8000-000000000003', userId: 1, assistantId: 1 }),
      attemptWebhookDelivery: () => Promise.resolve({ outcome: 'delivered' as const }),
    },
    // Two messages, the second resetting the quiet period, then the end with its webhook.
    async run(temporal, workflowId) {
      const start = { taskQueue: temporal.taskQueue, workflowId, args: [{ conversationId: 1 }], signal: conversationSignals.messageStored, signalArgs: [{ timeoutMs: 500 }] };
      const handle = await temporal.client.workflow.signalWithStart(workflowTypes.conversationInactivity, start);
      await new Promise((resolve) => setTimeout(resolve, 200));
      await temporal.client.workflow.signalWithStart(workflowTypes.conversationInactivity, start);
      await handle.result();
      await temporal.client.workflow.getHandle('webhook-3').result();
      return handle;
    },
  },
  // Recorded after the timer read the last message's time when it woke (conversation-timer-reads-last-message): a
  // message came since, then the period passed; a message during the end signalled the run, whose next wake found
  // the conversation ended already.
  'conversation-timer-reads-last-message': {
    stubs: {
      endQuietConversation: (() => {
        const checks = [{ outcome: 'active' as const, remainingMs: 200 }, { outcome: 'ended' as const, webhook: true, evaluate: true }, { outcome: 'already_ended' as const }];
        return () => Promise.resolve(checks.shift() ?? { outcome: 'already_ended' as const });
      })(),
      evaluateConversation: async () => {
        conversationEnding.resolve();
        await new Promise((resolve) => setTimeout(resolve, 300));
        return { evaluated: true };
      },
      queueConversationEndedWebhook: () => Promise.resolve({
        outcome: 'queued' as const, deliveryId: 6, eventId: '00000000-0000-4000-8000-000000000006', userId: 1, assistantId: 1, first: { outcome: 'delivered' as const },
      }),
    },
    async run(temporal, workflowId) {
      const start = { taskQueue: temporal.taskQueue, workflowId, args: [{ conversationId: 2 }], signal: conversationSignals.messageStored, signalArgs: [{ timeoutMs: 300 }] };
      const handle = await temporal.client.workflow.signalWithStart(workflowTypes.conversationInactivity, start);
      await conversationEnding.promise;
      await temporal.client.workflow.signalWithStart(workflowTypes.conversationInactivity, start);
      await handle.result();
      return handle;
    },
  },
  // Recorded after the timer's run started with the timeout as its start delay (input `startDelayed`): it read the
  // last message's time when it first ran, a message had come since, then the period passed.
  'conversation-timer-start-delayed': {
    stubs: {
      endQuietConversation: (() => {
        const checks = [{ outcome: 'active' as const, remainingMs: 200 }, { outcome: 'ended' as const, webhook: false, evaluate: false }];
        return () => Promise.resolve(checks.shift() ?? { outcome: 'already_ended' as const });
      })(),
    },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.signalWithStart(workflowTypes.conversationInactivity, {
        taskQueue: temporal.taskQueue, workflowId, args: [{ conversationId: 3, startDelayed: true }], startDelay: 300,
        signal: conversationSignals.messageStored, signalArgs: [{ timeoutMs: 300 }],
      });
      await handle.result();
      return handle;
    },
  },
  // Recorded after the call's evaluation began together with telling the campaign and pricing (one task).
  'call-lifecycle-epilogue-together': {
    stubs: { ...callSteps, finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: true }) },
    run: webCall({ reason: 'customer_hangup' }),
  },
  'call-lifecycle-time-limit': { stubs: callSteps, run: webCall() },
  'call-lifecycle-never-connected': {
    stubs: { ...callSteps, requestHangup: () => Promise.resolve('gone' as const), finalizeCall: () => Promise.resolve({ status: 'failed' as const, evaluate: false }) },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.callLifecycle, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ callId: 1, timing: { connectTimeoutSeconds: 1, ringTimeoutSeconds: 1, graceSeconds: 1, hangupWaitSeconds: 1 } }],
      });
      await handle.result();
      return handle;
    },
  },
  'platform-self-check': {
    stubs: { recordSelfCheck: ({ checkId }) => Promise.resolve({ checkId, completedAt: '2026-01-01T00:00:00.000Z' }) },
    async run(temporal, workflowId) {
      const handle = await temporal.client.workflow.start(workflowTypes.selfCheck, {
        taskQueue: temporal.taskQueue,
        workflowId,
        args: [{ checkId: 'recorded' }],
      });
      await handle.result();
      return handle;
    },
  },
};

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-histories-'));
  const server = await startTemporalDevServer({
    cliPath: ensureTemporalCli(process.env.TEMPORAL_CLI, logger),
    port: await freePort(),
    uiPort: await freePort(),
    logger,
  });
  try {
    const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
    const workflowBundlePath = path.join(workDir, 'workflows.js');
    fs.writeFileSync(workflowBundlePath, (await bundleWorkflowCode({ workflowsPath, logger: quiet })).code);
    fs.mkdirSync(historiesDir, { recursive: true });
    const wanted = process.argv.slice(2);
    const unknown = wanted.filter((name) => !(name in scenarios));
    if (unknown.length > 0) throw new Error(`no such scenario: ${unknown.join(', ')}`);
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (wanted.length > 0 && !wanted.includes(name)) continue;
      const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'info', LOG_FORMAT: 'json', TEMPORAL_ADDRESS: server.address, TEMPORAL_TASK_QUEUE: name });
      const worker = await startWorker({ config, address: server.address, activities: stubActivities(scenario.stubs), logger, workflowBundlePath });
      const temporal = createTemporalClient(config, server.address);
      try {
        const handle = await scenario.run(temporal, name);
        fs.writeFileSync(path.join(historiesDir, `${name}.json`), historyToJson(await handle.fetchHistory()));
        logger.info({ scenario: name, status: (await handle.describe()).status.name }, 'history recorded');
      } finally {
        await worker.stop();
        await temporal.close();
      }
    }
  } finally {
    await server.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  logger.error({ err: error }, 'recording the histories failed');
  process.exit(1);
});
