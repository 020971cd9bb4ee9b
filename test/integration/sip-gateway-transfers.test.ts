import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { lastUserText, type ChatCompletionRequest, type FakeTurn } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { baresipInstalled, baresipSkipReason, lineWav } from '../support/baresip.ts';
import { placeCall, settledCall } from '../support/phone-calls.ts';
import { sipTestbed } from '../support/sip-testbed.ts';
import { rms, speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser } from '../support/users.ts';

const skipReason = !baresipInstalled ? baresipSkipReason : !speechInstalled ? speechSkipReason : '';

/** Each assistant's prompt names its part, which the fake model plays. */
function scenario(request: ChatCompletionRequest): FakeTurn {
  const prompt = request.messages[0]?.content ?? '';
  const heard = lastUserText(request);
  const afterTool = request.messages.at(-1)?.role === 'tool';
  if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'A SIP call.' } }] };
  // The briefing's summary, asked of the warm-transferring assistant's model with the default instructions.
  if (prompt.startsWith('Summarise')) return { reply: 'The caller would like to talk to sales.' };
  if (prompt.includes('[listener]')) return { reply: /sam/i.test(heard) ? 'Hi Sam, thanks.' : 'I would like to talk to sales, please.' };
  if (prompt.includes('[transfer]')) return afterTool ? { reply: 'Connecting you now.' } : { toolCalls: [{ name: 'call_transfer', arguments: {} }] };
  if (prompt.includes('[warm]')) return afterTool ? { reply: 'Let me get a colleague.' } : { toolCalls: [{ name: 'warm_call_transfer', arguments: {} }] };
  return { reply: 'Nice to meet you. How can I help?' };
}

/** What a far end heard, as 16-bit samples, and their rate. */
function recording(file: string): { samples: Int16Array; rate: number } {
  const wav = fs.readFileSync(file);
  return { samples: new Int16Array(wav.buffer, wav.byteOffset + 44, (wav.length - 44) >> 1), rate: wav.readUInt32LE(24) };
}

/** The longest stretch of a recording with sound in each of its 100 ms, in ms: hold music runs on, speech pauses. */
function longestSound(file: string): number {
  const { samples, rate } = recording(file);
  const step = rate / 10;
  let run = 0;
  let longest = 0;
  for (let at = 0; at + step <= samples.length; at += step) {
    run = rms(samples.subarray(at, at + step)) > 200 ? run + 100 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

describe.skipIf(skipReason !== '')(`Transfers of SIP trunk calls through the SIP gateway${skipReason ? ` (${skipReason})` : ''}`, () => {
  // The gateway's own calls (the transfers' legs) offer SRTP only, and their far ends take nothing else.
  const bed = sipTestbed(scenario, { SIP_OUTBOUND_SRTP: 'sdes' });
  const audio: Record<'talk' | 'quiet' | 'long' | 'asks' | 'supervisor', string> = { talk: '', quiet: '', long: '', asks: '', supervisor: '' };
  beforeAll(async () => {
    audio.talk = await lineWav(path.join(bed.dir, 'talk.wav'), [4500, 'Hello, my name is Sam.', 6000, 'Thank you, goodbye.', 3000]);
    audio.quiet = await lineWav(path.join(bed.dir, 'quiet.wav'), [8000]);
    audio.long = await lineWav(path.join(bed.dir, 'long.wav'), [4000, 'Hello, can you put me through to sales?', 20_000]);
    audio.asks = await lineWav(path.join(bed.dir, 'asks.wav'), [4000, 'Hello, can you put me through to sales?', 32_000]);
    audio.supervisor = await lineWav(path.join(bed.dir, 'supervisor.wav'), [12_000, 'Hello, my name is Sam.', 40_000]);
  }, 60_000);

  const knex = () => bed.platform.database.knex;
  const transfersOf = async (callId: number) => (await knex()('calls').where({ id: callId }).first()).transfers as Record<string, any>[];

  it('transfers a caller with a REFER to the number, through the carrier that brought the call', async () => {
    const transferring = await createTestUser(knex(), { balanceUsd: 5 });
    // The carrier's phone takes the transferred call itself: the number is one of its users.
    const caller = await bed.farEnd({ user: '+4915100000009', aliases: ['+4930777777'], audio: audio.long, incoming: 'answer' });
    const trunkId = await bed.trunk(transferring, { phone_number: '+4930666666', sip_address: caller.host, allowed_inbound_ips: [caller.host] });
    await createTestAssistant(bed.platform, transferring, {
      type: 'inbound', initial_message: 'Parley, good morning.', phone_number_id: trunkId, system_prompt: '[transfer]', tools: [{ type: 'call_transfer', phone_number: '+4930777777' }],
    });
    await caller.command('dial', `sip:+4930666666@127.0.0.1:${bed.port}`);
    // The caller's phone (the carrier, here) calls the number itself once told to, and answers its own call.
    await caller.waitFor((event) => event.type === 'TRANSFER', 60_000);
    const callId = Number((await bed.lastCallOf(transferring)).id);
    const row = await bed.settled(transferring, callId);
    expect(row).toMatchObject({ status: 'completed', endReason: 'transferred' });
    await expect.poll(async () => (await transfersOf(callId))[0]?.status, { timeout: 30_000 }).toBe('answered');
  }, 120_000);

  /**
   * A desk whose assistant transfers with `tool` (given the desk trunk's id), called by Parley itself through a
   * trunk to the gateway (whose side refuses REFER: 406), transcribing what it hears.
   */
  const deskCalledByParley = async (numbers: { desk: string; caller: string }, calleeHost: string, prompt: string, tool: (deskTrunk: number) => Record<string, unknown>) => {
    const desk = await createTestUser(knex(), { balanceUsd: 5 });
    const deskTrunk = await bed.trunk(desk, { phone_number: numbers.desk, sip_address: calleeHost, allowed_inbound_ips: ['127.0.0.1'] });
    await createTestAssistant(bed.platform, desk, { type: 'inbound', initial_message: 'Parley, good morning.', phone_number_id: deskTrunk, system_prompt: prompt, tools: [tool(deskTrunk)] });
    const caller = await createTestUser(knex(), { balanceUsd: 5 });
    const callerTrunk = await bed.trunk(caller, { phone_number: numbers.caller, sip_address: '127.0.0.1' });
    const assistant = await createTestAssistant(bed.platform, caller, { initial_message: 'Hi.', wait_for_customer: true, phone_number_id: callerTrunk, system_prompt: '[listener]' });
    const { row } = await settledCall(bed.platform, caller, await placeCall(bed.platform, caller, { phone_number: numbers.desk, assistant_id: assistant.id }));
    const transferred = await bed.settled(desk, Number((await bed.lastCallOf(desk)).id));
    return { row, transferred };
  };
  const coldTo = (number: string) => () => ({ type: 'call_transfer', phone_number: number });

  it('dials the transfer\'s number through the trunk (offering SRTP) and joins the caller to it when the far end refuses the REFER', async () => {
    const callee = await bed.farEnd({ user: '+4930888888', audio: audio.talk, incoming: 'answer', mediaenc: 'srtp-mand' });
    const { row, transferred } = await deskCalledByParley({ desk: '+4930888800', caller: '+4930888801' }, callee.host, '[transfer]', coldTo('+4930888888'));
    // The callee got the call from the desk's trunk number, and the caller heard the callee speak.
    expect((await callee.waitFor((event) => event.type === 'CALL_ESTABLISHED')).peeruri).toMatch(/^sip:\+4930888800@/);
    expect(row).toMatchObject({ status: 'ended_by_customer' });
    expect(row.transcript).toMatch(/Customer: .*(sam|goodbye)/i);
    expect(transferred).toMatchObject({ status: 'completed', endReason: 'transferred' });
    // A REFER taken would have ended `answered`: `completed` with the seconds talked is the gateway's own leg,
    // whose outcome comes when the two part, which may be after the desk's call has settled.
    await expect.poll(async () => (await transfersOf(Number(transferred.id)))[0]?.status, { timeout: 30_000 }).toBe('completed');
    expect((await transfersOf(Number(transferred.id)))[0]!.duration).toBeGreaterThan(5);
    expect(bed.logged()).toContain('joined the caller to the transfer\'s second leg');
    // The leg went to the trunk's own address, so it carried the trunk's password: never into a log.
    expect(bed.logged()).not.toContain('trunk-secret');
  }, 120_000);

  it('tells the caller that nobody took the transfer, then hangs up: a busy second leg, and a busy supervisor called at a number through the trunk', async () => {
    const callee = await bed.farEnd({ user: '+4930888899', audio: audio.quiet, incoming: 'refuse', mediaenc: 'srtp-mand' });
    const supervisor = await bed.farEnd({ user: '+4930888897', audio: audio.quiet, incoming: 'refuse', mediaenc: 'srtp-mand' });
    const [cold, warm] = await Promise.all([
      deskCalledByParley({ desk: '+4930888890', caller: '+4930888891' }, callee.host, '[transfer]', coldTo('+4930888899')),
      deskCalledByParley({ desk: '+4930888892', caller: '+4930888893' }, supervisor.host, '[warm]', (deskTrunk) => ({
        type: 'warm_call_transfer', supervisor_phone: '+4930888897', outbound_phone_id: deskTrunk, description: 'A colleague in sales.',
      })),
    ]);
    for (const { row, transferred } of [cold, warm]) {
      // The caller (Parley, transcribing what it hears) heard the apology before the gateway hung up.
      expect(row).toMatchObject({ status: 'ended_by_customer' });
      expect(row.transcript).toMatch(/Customer: .*nobody could take/i);
      expect(transferred).toMatchObject({ status: 'completed', endReason: 'transferred' });
      await expect.poll(async () => (await transfersOf(Number(transferred.id)))[0]?.status, { timeout: 30_000 }).toBe('busy');
    }
    expect((await transfersOf(Number(warm.transferred.id)))[0]).toMatchObject({ type: 'supervisor', to: '+4930888897', connected_at: null });
  }, 120_000);

  it('holds the caller with music for a warm transfer to a SIP URI, briefs the supervisor, then joins the two, keys passing between them', async () => {
    const supervisor = await bed.farEnd({ user: 'desk', audio: audio.supervisor, incoming: 'answer', mediaenc: 'srtp-mand' });
    const owner = await createTestUser(knex(), { balanceUsd: 5 });
    const trunkId = await bed.trunk(owner, { phone_number: '+4930777700', allowed_inbound_ips: ['127.0.0.0/24'] });
    const uri = `sip:desk@${supervisor.host}:${bed.port}`;
    await createTestAssistant(bed.platform, owner, {
      type: 'inbound', initial_message: 'Parley, good morning.', phone_number_id: trunkId, system_prompt: '[warm]',
      tools: [{ type: 'warm_call_transfer', supervisor_phone: uri, custom_sip: true, outbound_phone_id: trunkId, description: 'A colleague in sales.' }],
    });
    const caller = await bed.farEnd({ user: '+4915100000077', audio: audio.asks });
    await caller.command('dial', `sip:+4930777700@127.0.0.1:${bed.port}`);
    // The supervisor sees the trunk's number calling, in its calling format.
    expect((await supervisor.waitFor((event) => event.type === 'CALL_ESTABLISHED', 60_000)).peeruri).toMatch(/^sip:\+4930777700@/);
    const callId = Number((await bed.lastCallOf(owner)).id);
    // Once joined, keys pass between the two as telephone events.
    await expect.poll(async () => (await transfersOf(callId))[0]?.status, { timeout: 30_000 }).toBe('connected');
    await caller.command('sndcode', '5');
    await supervisor.command('sndcode', '9');
    await expect.poll(() => supervisor.keysReceived(), { timeout: 5000 }).toBe('5');
    await expect.poll(() => caller.keysReceived(), { timeout: 5000 }).toBe('9');
    await bed.closedWith(caller);
    expect(await bed.settled(owner, callId)).toMatchObject({ status: 'completed', endReason: 'transferred' });
    await expect.poll(async () => (await transfersOf(callId))[0]?.status, { timeout: 30_000 }).toBe('completed');
    const [transfer] = await transfersOf(callId);
    expect(transfer).toMatchObject({ type: 'supervisor', to: uri, caller_id: '+4930777700', summary_source: 'model', hold_music_volume: 80 });
    expect(transfer!.briefing).toContain('would like to talk to sales');
    expect(transfer!.connected_at).not.toBeNull();
    expect(transfer!.supervisor_call_id).toMatch(/^[0-9a-f]{32}$/);
    // The supervisor's call from the answer to the caller's hang-up, briefing included.
    expect(transfer!.duration).toBeGreaterThan(10);
    // The supervisor's line is silent for 12 s: the sound in its first 5 s is the briefing.
    const heard = recording(supervisor.recordings()[0]!);
    expect(rms(heard.samples.subarray(0, heard.rate * 5))).toBeGreaterThan(100);
    // The caller waited with music: seconds of unbroken sound, as no speech has.
    expect(longestSound(caller.recordings()[0]!)).toBeGreaterThanOrEqual(5000);
  }, 120_000);
});
