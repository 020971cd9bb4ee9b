import { randomUUID } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import type { TemporalClient } from '../temporal/client.ts';
import { runSelfCheck } from '../temporal/starters.ts';
import { defineRoute, type RouteDefinition } from './routing.ts';

export interface ReadinessDeps {
  knex: Knex;
  temporal: TemporalClient;
  /** How knowledge base search runs (lib: describeEmbeddings); shown, never a reason to be unready. */
  embeddings?: string;
}

type CheckResult = 'ok' | `down: ${string}`;

// Checks that only inform; every other check must be 'ok' for the service to be ready.
const informational = new Set(['embeddings']);

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
export async function readiness(deps: ReadinessDeps, deep: boolean): Promise<Record<string, string>> {
  const [database, temporal] = await Promise.all([
    check(() => withTimeout(deps.knex.raw('select 1'), 2000, 'the database')),
    check(() => deps.temporal.ping(2000)),
  ]);
  const checks: Record<string, string> = { database, temporal };
  if (deep) {
    checks.worker = database === 'ok' && temporal === 'ok'
      ? await check(() => {
        const checkId = randomUUID();
        return withTimeout(runSelfCheck(deps.temporal, checkId), 15_000, 'a worker');
      })
      : 'down: needs the database and Temporal';
  }
  if (deps.embeddings !== undefined) checks.embeddings = deps.embeddings;
  return checks;
}

const Checks = Type.Record(Type.String(), Type.String(), { examples: [{ database: 'ok', temporal: 'ok' }] });

/** `GET /api/health` (liveness) and `GET /api/ready` (readiness, `?deep=true` for the full chain). */
export function healthRoutes(deps: ReadinessDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/health',
      tag: 'Operations',
      summary: 'Liveness: 200 while the process lives',
      auth: 'public',
      responses: { 200: { description: 'Alive', schema: Type.Object({ status: Type.Literal('ok') }) } },
      handle: () => ({ body: { status: 'ok' } }),
    }),
    defineRoute({
      method: 'GET',
      path: '/ready',
      tag: 'Operations',
      summary: 'Readiness: 200 when the database and Temporal answer, else 503 naming what is down',
      auth: 'public',
      query: Type.Object({
        deep: Type.Optional(Type.Boolean({ description: 'Also run a workflow through a worker into the database.' })),
      }),
      responses: {
        200: { description: 'Ready', schema: Type.Object({ status: Type.Literal('ok'), checks: Checks }) },
        503: {
          description: 'Something is down',
          schema: Type.Object({ status: Type.Literal('unavailable'), message: Type.String(), checks: Checks }),
        },
      },
      async handle({ query }) {
        const checks = await readiness(deps, query.deep === true);
        const down = Object.entries(checks).filter(([name, result]) => !informational.has(name) && result !== 'ok').map(([name]) => name);
        if (down.length === 0) return { body: { status: 'ok', checks } };
        return {
          status: 503,
          body: { status: 'unavailable', message: `Not ready: ${down.join(', ')} ${down.length === 1 ? 'is' : 'are'} down.`, checks },
        };
      },
    }),
  ];
}
