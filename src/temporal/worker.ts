import { fileURLToPath } from 'node:url';
import { Context } from '@temporalio/activity';
import { DefaultLogger, NativeConnection, Runtime, Worker, type LogLevel } from '@temporalio/worker';
import type { Config } from '../config.ts';
import { withLogContext } from '../lib/log-context.ts';
import type { Logger } from '../logger.ts';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));

let runtimeInstalled = false;

/** Temporal's core logs through our logger; installable once per process, before the first worker. */
function installRuntime(logger: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  const levels: Record<LogLevel, 'trace' | 'debug' | 'info' | 'warn' | 'error'> = {
    TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error',
  };
  const temporalLogger = logger.child({ component: 'temporal' });
  Runtime.install({
    logger: new DefaultLogger('WARN', (entry) => {
      temporalLogger[levels[entry.level]]({ ...entry.meta }, entry.message);
    }),
  });
}

export interface StartedWorker {
  worker: Worker;
  /** Resolves when the worker has stopped polling and finished its in-flight tasks. */
  stop(): Promise<void>;
}

/**
 * Starts a worker on the configured task queue with the given activities (the worker role builds them
 * over its providers; workflow tests hand in stubs). `workflowBundlePath` lets tests bundle the workflow
 * code once for the whole run instead of once per worker.
 */
export async function startWorker(options: {
  config: Pick<Config, 'temporal'>;
  address: string;
  activities: object;
  logger: Logger;
  workflowBundlePath?: string;
}): Promise<StartedWorker> {
  installRuntime(options.logger);
  const connection = await NativeConnection.connect({ address: options.address });
  const worker = await Worker.create({
    connection,
    namespace: options.config.temporal.namespace,
    taskQueue: options.config.temporal.taskQueue,
    activities: withActivityIds(options.activities),
    ...(options.workflowBundlePath
      ? { workflowBundle: { codePath: options.workflowBundlePath } }
      : { workflowsPath }),
  });
  const running = worker.run();
  return {
    worker,
    stop: async () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await connection.close();
    },
  };
}

/**
 * The activities, each running with its workflow's ids, its own type and attempt on every log line it writes
 * through any logger (lib/log-context.ts): the activities' loggers are made once, before any workflow.
 */
function withActivityIds(activities: object): Record<string, (...args: unknown[]) => unknown> {
  return Object.fromEntries(Object.entries(activities as Record<string, (...args: unknown[]) => unknown>).map(([name, activity]) => [name, (...args: unknown[]) => {
    const { workflowExecution, activityType, attempt } = Context.current().info;
    return withLogContext({ workflowId: workflowExecution?.workflowId, runId: workflowExecution?.runId, activityType, attempt }, () => activity(...args));
  }]));
}
