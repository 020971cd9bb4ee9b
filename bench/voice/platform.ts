/**
 * The platform side of the voice benchmarks: the whole platform (api, worker, media; embedded PGlite and the
 * Temporal dev server in a temporary data directory, on free ports) in this process, a user with credit and an
 * assistant, and the callers in a child process (callers.ts) so their timers and the fake providers never
 * share this event loop.
 */
import { fork } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { usdToMicros } from '../../src/lib/money.ts';
import { createLogger } from '../../src/logger.ts';
import { startPlatform, type RunningPlatform } from '../../src/platform.ts';
import { createApiKey } from '../../src/resources/api-keys/service.ts';
import { createUser } from '../../src/resources/users/service.ts';
import type { CallTurn } from '../../src/voice/hooks.ts';
import { createTestAssistant } from '../../test/support/assistants.ts';
import { apiRequest } from '../../test/support/http.ts';
import { benchEnv } from '../platform-env.ts';
import type { CallerReply, CallerRequest, FakeDelays, FakeUrls } from './protocol.ts';

export interface BenchPlatform {
  running: RunningPlatform;
  apiUrl: string;
  token: string;
  assistantId: number;
  /** The replica's MEDIA_MAX_CALLS. */
  mediaMaxCalls: number;
  /** Another assistant of the account, like the first with `fields` changed; its id. */
  addAssistant(fields: Record<string, unknown>): Promise<number>;
  /** Sends a request to the callers' process and resolves with its answer. */
  ask<T extends CallerReply>(request: CallerRequest): Promise<T>;
  /** The stored turns of each call, by call id. */
  turnsOf(callIds: number[]): Promise<Map<number, CallTurn[]>>;
  close(): Promise<void>;
}

/** Starts the callers' process with its fake providers, then the platform configured to use them. */
export async function startBenchPlatform(options: {
  delays: FakeDelays;
  /** Environment of the platform beyond ports, data directory and the fakes' URLs (providers, limits). */
  env: (urls: FakeUrls) => Record<string, string>;
  /** Picks the assistant's voice from the catalog's pipeline voices of its language. */
  voice: (voice: { id: number; name: string }) => boolean;
  /** The assistant's language (ISO 639-1); English by default. */
  language?: string;
  assistant?: Record<string, unknown>;
  /** Takes the platform's log lines (JSON) instead of stdout. */
  log?: { write(line: string): void };
}): Promise<BenchPlatform> {
  const callers = fork(new URL('./callers.ts', import.meta.url), { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  // One wait for the process's end, raced by every request (a wait per request would pile up listeners).
  const exited = once(callers, 'exit').then(() => { throw new Error('the callers process exited'); });
  exited.catch(() => undefined);
  const ask = async <T extends CallerReply>(request: CallerRequest): Promise<T> => {
    callers.send(request);
    const [reply] = await Promise.race([once(callers, 'message'), exited]) as [T];
    if ('error' in reply) throw new Error(`callers: ${String(reply.error)}`);
    return reply;
  };
  const { urls } = await ask<{ urls: FakeUrls }>({ type: 'fakes', delays: options.delays });

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-voice-bench-'));
  const { env, baseUrl: apiUrl } = await benchEnv({ dataDir, llmUrl: urls.llm, extra: options.env(urls) });
  const config = loadConfig(env);
  const logger = createLogger(config, options.log);
  const running = await startPlatform({ config, logger, role: 'all' });
  const knex = running.database.knex;
  const user = await createUser(knex, { name: 'Bench', email: `bench-${randomUUID()}@example.test`, creditMicros: usdToMicros(100_000), creditKind: 'adjustment' });
  // A plan of its own without a concurrent-call limit: what a bench of N calls measures is the media replica
  // (MEDIA_MAX_CALLS), not the default plan's ten calls.
  await knex('plans').insert({ id: `bench-${user.id}`, name: 'Bench', maxCallsInParallel: null });
  await knex('users').where({ id: user.id }).update({ planId: `bench-${user.id}` });
  const { token } = await createApiKey(knex, user.id, 'bench');
  const request = apiRequest(apiUrl);
  const languageId = ((await request('GET', '/user/assistants/languages', { token })).body as { id: number; iso_2: string }[])
    .find((language) => language.iso_2 === (options.language ?? 'en'))?.id;
  const voices = (await request('GET', `/user/assistants/voices?mode=pipeline&language_id=${languageId}`, { token })).body as { id: number; name: string }[];
  const voice = voices.find(options.voice);
  if (!voice) throw new Error(`no catalog voice fits; the catalog has ${voices.map((entry) => entry.name).join(', ')}`);
  const addAssistant = async (fields: Record<string, unknown>) => (await createTestAssistant({ request }, { token }, {
    voice_id: voice.id,
    language_id: languageId,
    initial_message: 'Hello, this is Parley. How can I help you today?',
    max_call_duration: 600,
    ...fields,
  })).id;
  const assistantId = await addAssistant(options.assistant ?? {});

  return {
    running,
    apiUrl,
    token,
    assistantId,
    mediaMaxCalls: config.media.maxCalls,
    addAssistant,
    ask,
    async turnsOf(callIds) {
      const rows = await knex('calls').whereIn('id', callIds).select<{ id: number; turns: CallTurn[] | null }[]>('id', 'turns');
      return new Map(rows.map((row) => [Number(row.id), row.turns ?? []]));
    },
    async close() {
      callers.send({ type: 'exit' } satisfies CallerRequest);
      await once(callers, 'exit');
      await running.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
