import { WorkflowNotFoundError } from '@temporalio/client';
import pino from 'pino';
import { describe, expect, it, onTestFinished } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { cancelDocumentIngestion, startCallLifecycle, startDocumentIngestion } from '../../src/temporal/starters.ts';
import { activityGate, startStubWorker } from '../support/workflows.ts';

describe('startDocumentIngestion', () => {
  it('finds the running ingestion on a second start of the same document, and logs it with its run id', async () => {
    const acquiring = activityGate();
    const worker = await startStubWorker({
      acquireDocumentSource: async () => {
        await acquiring.pass();
        return { sources: 1, skipped: 0 };
      },
    });
    onTestFinished(() => worker.stop());
    const logged: { level: number; msg: string; workflowId?: string; runId?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const document = { id: 1, userId: 7 };

    await startDocumentIngestion(worker.temporal, document, logger);
    await acquiring.entered;
    expect(logged).toEqual([]);
    await startDocumentIngestion(worker.temporal, document, logger);

    const running = await worker.temporal.client.workflow.getHandle(workflowIds.document(document.id)).describe();
    expect(logged).toEqual([expect.objectContaining({
      level: pino.levels.values.warn,
      msg: 'document ingestion already running: not started again',
      workflowId: 'document-1',
      runId: running.runId,
    })]);
    expect(worker.calls.map((call) => call.name)).toEqual(['acquireDocumentSource']);
  });
});

describe('cancelDocumentIngestion', () => {
  it('is fine with a document whose ingestion never started', async () => {
    const worker = await startStubWorker({});
    onTestFinished(() => worker.stop());
    await expect(worker.temporal.client.workflow.getHandle(workflowIds.document(404)).describe()).rejects.toBeInstanceOf(WorkflowNotFoundError);
    await expect(cancelDocumentIngestion(worker.temporal, 404)).resolves.toBeUndefined();
  });
});

describe('startCallLifecycle', () => {
  it('finds the running lifecycle on a second start of the same call, and logs it', async () => {
    const preparing = activityGate();
    const worker = await startStubWorker({
      prepareCall: async () => {
        await preparing.pass();
        return { outcome: 'ready', maxSeconds: 60, phone: false, dial: false, endCallOnVoicemail: true };
      },
    });
    onTestFinished(() => worker.stop());
    const logged: { msg: string; workflowId?: string }[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    const call = { id: 3, userId: 7, assistantId: null };

    await startCallLifecycle(worker.temporal, call, logger);
    await preparing.entered;
    await startCallLifecycle(worker.temporal, call, logger);

    expect(logged).toEqual([expect.objectContaining({ msg: 'call lifecycle already running: not started again', workflowId: 'call-3' })]);
    expect(worker.calls.map((entry) => entry.name)).toEqual(['prepareCall']);
    await worker.temporal.client.workflow.getHandle(workflowIds.call(call.id)).terminate('the test is over');
  });
});
