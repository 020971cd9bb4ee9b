import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, expect } from 'vitest';
import { createLogger } from '../../src/logger.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type ChatCompletionRequest, type FakeLlmServer, type FakeTurn } from '../fakes/llm-server.ts';
import { freePortPair, startBaresip, type Baresip, type BaresipEvent, type BaresipOptions } from './baresip.ts';
import { startTestPlatform, type TestPlatform } from './platform.ts';
import { freePort } from './ports.ts';
import { createTestUser, type TestUser } from './users.ts';

/**
 * The platform with its SIP gateway, for tests that call and answer with baresip: each far end listens on the
 * gateway's port at a loopback address of its own (so `SIP_TRUNK_PORT` is one port for all), and everything the
 * platform and the gateway log, at their most verbose, is kept for the tests to search (for passwords).
 */
export interface SipTestbed {
  platform: TestPlatform;
  owner: TestUser;
  /** The gateway's SIP port, and its TLS port. */
  port: number;
  tlsPort: number;
  /** A scratch folder, removed after the tests. */
  dir: string;
  logged: () => string;
  farEnd: (options: Omit<BaresipOptions, 'host' | 'port'>) => Promise<Baresip>;
  /** Creates a SIP trunk (an `ip` trunk at 127.0.0.3 unless `body` says otherwise) and answers its id. */
  trunk: (user: TestUser, body: Record<string, unknown>) => Promise<number>;
  lastCallOf: (user: TestUser) => Promise<any>;
  /** The call once its workflow has ended. */
  settled: (user: TestUser, callId: number) => Promise<any>;
  closedWith: (farEnd: Baresip) => Promise<BaresipEvent>;
}

/**
 * Registers the hooks that start and stop the testbed in the calling `describe`; the fake model plays `scenario`,
 * and `env` adds to the platform's settings.
 */
export function sipTestbed(scenario: (request: ChatCompletionRequest) => FakeTurn, env: Record<string, string> = {}): SipTestbed {
  let llm: FakeLlmServer | undefined;
  const farEnds: Baresip[] = [];
  let logged = '';
  let addresses = 10;
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logged += chunk.toString();
      done();
    },
  });
  const knex = () => testbed.platform.database.knex;
  const testbed: SipTestbed = {
    platform: undefined as unknown as TestPlatform,
    owner: undefined as unknown as TestUser,
    port: 0,
    tlsPort: 0,
    dir: fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sip-test-')),
    logged: () => logged,
    farEnd: async (options) => {
      const started = await startBaresip({ host: `127.0.0.${addresses++}`, port: testbed.port, ...options });
      farEnds.push(started);
      return started;
    },
    trunk: async (user, body) => {
      const created = await testbed.platform.request('POST', '/user/phone-numbers/sip-trunks', {
        token: user.token,
        body: {
          sip_trunk_type: 'number', sip_username: 'carrier', sip_password: 'trunk-secret', sip_address: '127.0.0.3', country_code: 'DE',
          inbound_authorization_type: 'ip', allowed_inbound_ips: ['127.0.0.3'], ...body,
        },
      });
      expect(created.status, created.text).toBe(201);
      return created.body.data.id as number;
    },
    lastCallOf: async (user) => knex()('calls').where({ userId: user.id }).orderBy('id', 'desc').first(),
    settled: async (_user, callId) => {
      await testbed.platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
      return knex()('calls').where({ id: callId }).first();
    },
    closedWith: (farEnd) => farEnd.waitFor((event) => event.type === 'CALL_CLOSED', 60_000),
  };

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond(scenario);
    testbed.port = await freePortPair();
    // A self-signed certificate for SIP over TLS, on a port of its own.
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=127.0.0.1',
      '-keyout', path.join(testbed.dir, 'sip.key'), '-out', path.join(testbed.dir, 'sip.crt')], { stdio: 'ignore' });
    testbed.tlsPort = await freePort();
    testbed.platform = await startTestPlatform({
      worker: true, media: true, sip: true,
      logger: createLogger({ log: { level: 'debug', pretty: false } }, sink),
      env: {
        LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', SIP_PORT: String(testbed.port), SIP_TRUNK_PORT: String(testbed.port), FETCH_ALLOW_HOSTS: '127.0.0.1',
        // The gateway logs at the level the platform's configuration says (silent in tests: errors only).
        LOG_LEVEL: 'debug',
        SIP_TLS_CERT: path.join(testbed.dir, 'sip.crt'), SIP_TLS_KEY: path.join(testbed.dir, 'sip.key'), SIP_TLS_PORT: String(testbed.tlsPort),
        ...env,
      },
    });
    testbed.owner = await createTestUser(knex(), { balanceUsd: 5 });
  }, 120_000);
  afterAll(async () => {
    // SIP_TEST_LOG=<file> keeps what was logged, to read after a failure.
    if (process.env.SIP_TEST_LOG) fs.writeFileSync(process.env.SIP_TEST_LOG, logged);
    await Promise.all(farEnds.map((farEnd) => farEnd.close()));
    await testbed.platform?.close();
    await llm?.close();
    fs.rmSync(testbed.dir, { recursive: true, force: true });
  });
  return testbed;
}
