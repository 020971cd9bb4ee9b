import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { baresipInstalled, baresipSkipReason, startBaresip, writeLineWav, type Baresip } from '../support/baresip.ts';
import { personCalleeTurn } from '../support/phone-calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason, spokenPcm } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const skipReason = !baresipInstalled ? baresipSkipReason : !speechInstalled ? speechSkipReason : '';

describe.skipIf(skipReason !== '')(`SIP trunks through the SIP gateway${skipReason ? ` (${skipReason})` : ''}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-sip-test-'));
  let callerAudio: string;

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond(personCalleeTurn);
    platform = await startTestPlatform({ worker: true, media: true, sip: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const silence = (ms: number) => new Int16Array(16 * ms);
    const hello = await spokenPcm('Hello, my name is Sam.');
    const bye = await spokenPcm('Thank you, goodbye.');
    const parts = [silence(3500), hello, silence(4000), bye, silence(3000)];
    const all = new Int16Array(parts.reduce((n, part) => n + part.length, 0));
    let offset = 0;
    for (const part of parts) {
      all.set(part, offset);
      offset += part.length;
    }
    callerAudio = path.join(dir, 'caller.wav');
    writeLineWav(callerAudio, all);
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const gatewayPort = () => Number(platform.sip!.listening()!.udp.split(':').pop());

  it('takes a call to a trunk number from an allowed address to its inbound assistant, who talks with the caller', async () => {
    const trunk = await platform.request('POST', '/user/phone-numbers/sip-trunks', {
      token: owner.token,
      body: { sip_trunk_type: 'number', phone_number: '+4930123456', sip_username: 'carrier', sip_password: 'secret-one', sip_address: 'sip.carrier.example', inbound_authorization_type: 'ip', allowed_inbound_ips: ['127.0.0.0/8'], country_code: 'DE' },
    });
    expect(trunk.status, trunk.text).toBe(201);
    await createTestAssistant(platform, owner, { type: 'inbound', initial_message: 'Thanks for calling Parley.', phone_number_id: trunk.body.data.id });
    const caller: Baresip = await startBaresip({ user: '+4915112345678', audio: callerAudio });
    try {
      await caller.command('dial', `sip:4930123456@127.0.0.1:${gatewayPort()}`);
      await caller.waitFor((event) => event.type === 'CALL_ESTABLISHED', 20_000);
      await caller.waitFor((event) => event.type === 'CALL_CLOSED', 40_000);
      const row = await platform.database.knex('calls').where({ userId: owner.id }).orderBy('id', 'desc').first();
      await platform.temporal.client.workflow.getHandle(workflowIds.call(Number(row.id))).result();
      const done = await platform.database.knex('calls').where({ id: row.id }).first();
      console.log(done.transcript, done.status, done.endReason, caller.recordings());
      expect(done).toMatchObject({ type: 'inbound', status: 'ended_by_customer', clientPhoneNumber: '+4915112345678', assistantPhoneNumber: '+4930123456' });
    } finally {
      await caller.close();
    }
  }, 90_000);
});
