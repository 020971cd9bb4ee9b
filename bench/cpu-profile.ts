/**
 * A CPU profile of this thread over one stretch of a benchmark (the inspector's sampling profiler, so it covers
 * exactly the turns measured, not the start-up), written as a `.cpuprofile` that Chrome's DevTools opens, and
 * its self time summed by what the code is: PGlite's WebAssembly, the pg driver, knex, Koa, the Temporal client,
 * Parley's own folders and so on.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector/promises';
import path from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * What a script is, by its URL. Node's own code (`node:`) and native frames count for the script that called
 * them: a socket write for the driver or server that wrote, a file write for PGlite.
 */
const kinds: [RegExp, string][] = [
  [/^wasm:|@electric-sql\/pglite/, 'PGlite (WebAssembly, its glue, its file writes)'],
  [/\/src\/db\/(embedded|pglite-stream)\.ts/, "PGlite's connections (messages to its thread)"],
  [/node_modules\/(pg|pg-protocol|pg-pool|pg-types|pg-cursor|postgres-[a-z]+)\//, 'pg driver (and its socket)'],
  [/node_modules\/(knex|objection|tarn|lodash)\//, 'knex and objection'],
  [/node_modules\/(koa|@koa\/[^/]+|koa-[^/]+|co-body|raw-body|inflation|type-is|mime-[^/]+|accepts|negotiator|cookies|http-errors|statuses|on-finished|vary|content-type)\/|\/src\/api\/(app|routing|middleware\/(body|errors|cors|request-context))/, 'HTTP server (Koa, router, body, responses)'],
  [/node_modules\/(ajv|ajv-formats)\/|\/src\/api\/validation/, 'validation (ajv)'],
  [/\/src\/api\/middleware\/(auth|rate-limit)|\/src\/db\/rate-limiter|\/src\/resources\/auth\//, 'auth and rate limit'],
  [/node_modules\/(@grpc|@temporalio\/(client|proto|common)|protobufjs|long|@protobufjs)/, 'Temporal client (gRPC)'],
  [/node_modules\/(@temporalio\/(worker|core-bridge|activity)|rxjs)\/|\/activities\//, 'Temporal worker (core bridge, workflow threads, activities)'],
  [/node_modules\/(undici|eventsource-parser)\/|\/src\/providers\/llm\//, 'model client (undici, SSE)'],
  [/node_modules\/(pino|pino-[^/]+|sonic-boom|thread-stream|fast-redact|quick-format-unescaped)\//, 'logging (pino)'],
  [/node_modules\/(prom-client|tdigest|bintrees)\/|\/src\/api\/middleware\/metrics/, 'metrics (prom-client)'],
  [/\/src\/billing\//, 'ledger and billing'],
  [/\/src\/knowledge\//, 'retrieval (knowledge)'],
  [/\/src\/resources\/conversations\/|\/src\/db\//, 'conversation service and statements'],
  [/\/src\/agent\//, 'agent (turn, prompt, tools)'],
  [/\/(src|workflows)\//, 'other Parley code'],
  [/\/bench\/|\/test\//, 'the bench'],
  [/node_modules\//, 'other packages'],
];

function kindOf(url: string): string | undefined {
  if (!url || url.startsWith('node:')) return undefined;
  return kinds.find(([pattern]) => pattern.test(url))?.[1] ?? 'other scripts';
}

/** Milliseconds of self time by kind of code, busiest first; idle time is left out. */
export function summarize(profile: CpuProfile): { busyMs: number; kinds: [string, number][] } {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const special: Record<string, string> = { '(garbage collector)': 'garbage collection', '(program)': 'V8 and native, no script' };
  const kindOfNode = (id: number): string | undefined => {
    const frame = byId.get(id)!.callFrame;
    if (frame.functionName === '(idle)') return undefined;
    if (Object.hasOwn(special, frame.functionName)) return special[frame.functionName];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const kind = kindOf(byId.get(at)!.callFrame.url);
      if (kind) return kind;
    }
    return 'Node (event loop, HTTP parsing, streams)';
  };
  const totals = new Map<string, number>();
  const memo = new Map<number, string | undefined>();
  let busyMs = 0;
  profile.samples.forEach((id, index) => {
    // A sample's time is the gap to the next one.
    const ms = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    if (!memo.has(id)) memo.set(id, kindOfNode(id));
    const kind = memo.get(id);
    if (kind === undefined) return;
    busyMs += ms;
    totals.set(kind, (totals.get(kind) ?? 0) + ms);
  });
  return { busyMs, kinds: [...totals].sort((a, b) => b[1] - a[1]) };
}

/** Profiles this thread from `start()` until `stop(file)`, which writes the profile and answers it. */
export async function startCpuProfile(intervalMicros = 1000): Promise<{ stop(file: string): Promise<CpuProfile> }> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: intervalMicros });
  await session.post('Profiler.start');
  return {
    async stop(file) {
      const { profile } = await session.post('Profiler.stop') as unknown as { profile: CpuProfile };
      session.disconnect();
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify(profile));
      return profile;
    },
  };
}

/**
 * The summary as lines: each kind's share of the samples taken while the thread was busy, and that share of
 * `cpuMsPerTurn`, the thread's CPU time per turn measured alongside. A sample counts wall time, which a loaded
 * machine stretches (the thread waits for a core), so the shares say more than the profile's own milliseconds.
 */
export function summaryLines(profile: CpuProfile, cpuMsPerTurn: number, top = 16): string[] {
  const { busyMs, kinds: totals } = summarize(profile);
  return [
    `  where the main thread's ${cpuMsPerTurn.toFixed(2)} ms of CPU per turn went (shares of its busy samples):`,
    ...totals.slice(0, top).map(([kind, ms]) => `    ${(100 * ms / busyMs).toFixed(1).padStart(5)} %  ${(cpuMsPerTurn * ms / busyMs).toFixed(3).padStart(6)} ms  ${kind}`),
  ];
}
