import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config.ts';

export interface TemporalClient {
  client: Client;
  connection: Connection;
  taskQueue: string;
  /** Resolves when the frontend answers, rejects with its error otherwise. */
  ping(timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * One client per process, created at boot. The connection is lazy so the API can start (and report itself
 * not ready) while Temporal is still coming up.
 */
export function createTemporalClient(config: Pick<Config, 'temporal'>, address: string): TemporalClient {
  const connection = Connection.lazy({ address });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  return {
    client,
    connection,
    taskQueue: config.temporal.taskQueue,
    ping: async (timeoutMs = 2000) => {
      await connection.withDeadline(Date.now() + timeoutMs, () =>
        connection.workflowService.describeNamespace({ namespace: config.temporal.namespace }));
    },
    close: () => connection.close(),
  };
}
