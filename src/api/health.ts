import { randomUUID } from 'node:crypto';
import type Koa from 'koa';
import Router from '@koa/router';
import type { Knex } from 'knex';
import type { TemporalClient } from '../temporal/client.ts';
import { workflowIds } from '../temporal/names.ts';
import { platformSelfCheckWorkflow } from '../../workflows/index.ts';

export interface ReadinessDeps {
  knex: Knex;
  temporal: TemporalClient;
}

type CheckResult = 'ok' | `down: ${string}`;

async function check(run: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await run();
    return 'ok';
  } catch (error) {
    return `down: ${(error as Error).message.split('\n')[0] ?? 'unknown error'}`;
  }
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The checks behind `GET /api/ready`; `deep` also runs a workflow through a worker into the database. */
export async function readiness(deps: ReadinessDeps, deep: boolean): Promise<Record<string, CheckResult>> {
  const [database, temporal] = await Promise.all([
    check(() => withTimeout(deps.knex.raw('select 1'), 2000, 'the database')),
    check(() => deps.temporal.ping(2000)),
  ]);
  const checks: Record<string, CheckResult> = { database, temporal };
  if (deep) {
    checks.worker = database === 'ok' && temporal === 'ok'
      ? await check(() => {
        const checkId = randomUUID();
        return withTimeout(deps.temporal.client.workflow.execute(platformSelfCheckWorkflow, {
          taskQueue: deps.temporal.taskQueue,
          workflowId: workflowIds.selfCheck(checkId),
          args: [{ checkId }],
          workflowExecutionTimeout: '15 seconds',
        }), 15_000, 'a worker');
      })
      : 'down: needs the database and Temporal';
  }
  return checks;
}

/** `GET /api/health` (liveness) and `GET /api/ready` (readiness, `?deep=true` for the full chain). */
export function healthRoutes(deps: ReadinessDeps): Router {
  const router = new Router();
  router.get('/health', (ctx: Koa.Context) => {
    ctx.body = { status: 'ok' };
  });
  router.get('/ready', async (ctx: Koa.Context) => {
    const checks = await readiness(deps, ctx.query.deep === 'true' || ctx.query.deep === '1');
    const down = Object.entries(checks).filter(([, result]) => result !== 'ok').map(([name]) => name);
    ctx.status = down.length === 0 ? 200 : 503;
    ctx.body = down.length === 0
      ? { status: 'ok', checks }
      : { status: 'unavailable', message: `Not ready: ${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} down.`, checks };
  });
  return router;
}
