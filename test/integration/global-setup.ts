import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import type { TestProject } from 'vitest/node';
import { connectPostgres, migrateLatest, openEmbedded } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { ensureSipGateway } from '../../src/sip/gateway-process.ts';
import { ensureTemporalCli, startTemporalDevServer } from '../../src/temporal/dev-server.ts';
import { workflowsPath } from '../../src/temporal/worker.ts';
import { freePort } from '../support/ports.ts';
import { createScratchDatabase } from '../support/scratch-database.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalAddress: string;
    databaseUrl: string | undefined;
    pgliteTemplate: string | undefined;
    workflowBundlePath: string;
  }
}

/**
 * Once per run: a real Temporal dev server, the database migrated once (a PGlite template that each test
 * file loads, or the PostgreSQL server of DATABASE_URL), and the workflow code bundled once.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const logger = createLogger({ log: { level: 'warn', pretty: false } });
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-test-'));

  const cliPath = ensureTemporalCli(process.env.TEMPORAL_CLI, logger);
  // Built (or found up to date) once here, not by each test file's sip role at the same time.
  try {
    ensureSipGateway({ gatewayBin: process.env.SIP_GATEWAY_BIN }, logger);
  } catch (error) {
    logger.warn({ err: error }, 'the SIP gateway could not be built: its tests will fail');
  }
  const startTemporal = async () => startTemporalDevServer({ cliPath, port: await freePort(), uiPort: await freePort(), logger });
  // A free port can be taken by another process before the server binds it (other runs share the machine):
  // the server then exits at once, and fresh ports are tried once more.
  const temporal = await startTemporal().catch((error: unknown) => {
    logger.warn({ err: error }, 'the Temporal dev server did not start; trying other ports');
    return startTemporal();
  });

  const serverUrl = process.env.DATABASE_URL || undefined;
  const scratch = serverUrl ? await createScratchDatabase(serverUrl) : undefined;
  const databaseUrl = scratch?.url ?? serverUrl;
  let pgliteTemplate: string | undefined;
  if (databaseUrl) {
    const database = await connectPostgres(databaseUrl, 2);
    await migrateLatest(database.knex);
    await database.close();
  } else {
    const database = await openEmbedded({});
    await migrateLatest(database.knex);
    pgliteTemplate = path.join(workDir, 'template.tar');
    fs.writeFileSync(pgliteTemplate, Buffer.from(await (await database.embedded.dump()).arrayBuffer()));
    await database.close();
  }

  const quiet = { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} };
  const { code } = await bundleWorkflowCode({ workflowsPath, logger: quiet });
  const workflowBundlePath = path.join(workDir, 'workflows.js');
  fs.writeFileSync(workflowBundlePath, code);

  project.provide('temporalAddress', temporal.address);
  project.provide('databaseUrl', databaseUrl);
  project.provide('pgliteTemplate', pgliteTemplate);
  project.provide('workflowBundlePath', workflowBundlePath);

  return async () => {
    await scratch?.drop();
    await temporal.stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
}
