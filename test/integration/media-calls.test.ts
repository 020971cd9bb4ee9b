import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallItem } from '../../src/resources/calls/schemas.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { startFakeRealtimeServer, type FakeRealtimeServer } from '../fakes/realtime-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { connectMediaStream, L16_16K, type MediaStreamClient } from '../support/media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { schemaViolations } from '../support/response-schema.ts';
import { energyVad, scriptedTurnModel, tone, toneStt, toneTts } from '../support/speech-doubles.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const LINES = 2;
const BUSY = { code: 1013, reason: 'All lines are busy. Please try again in a minute.' };
/** What the caller says, as the recognizer double knows it: a tone of this pitch. */
const QUESTION = { pitch: 300, text: 'What are your opening hours?' };

/**
 * The media role's calls (src/roles/media-calls.ts) with the API, the database and the call workflow on a
 * worker: the cap on calls held at once, an assistant's model settings as the language model and the
 * speech-to-speech provider receive them, and a call's row as the engine left it. Speech is the in-memory
 * doubles; the language model and the realtime provider are the protocol fakes.
 */
describe('calls on the media role', () => {
  let llm: FakeLlmServer;
  let realtime: FakeRealtimeServer;
  let platform: TestPlatform;
  let owner: TestUser;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond((request) => (request.tool_choice
      ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Asked for the hours.' } }] }
      : { reply: 'We open at nine.' }));
    realtime = await startFakeRealtimeServer({ speedUp: 4 });
    const tts = toneTts();
    platform = await startTestPlatform({
      worker: true,
      media: true,
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', REALTIME_URL: realtime.url, REALTIME_API_KEY: 'test-realtime-key', MEDIA_MAX_CALLS: String(LINES) },
      // The catalogs offer espeak-ng's voices (always part of the speech stack); the tone double speaks for every voice.
      // The turn model is a double too: Smart Turn's score of a tone is no one's business.
      providers: { stt: toneStt({ [QUESTION.pitch]: QUESTION.text }), vad: energyVad(), turn: scriptedTurnModel(0.9), tts: { forCode: () => tts, default: tts, codes: ['espeak'] } },
    });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await realtime?.close();
    await llm?.close();
  });

  const knex = () => platform.database.knex;
  const catalog = async (path: string) => (await platform.request('GET', path, { token: owner.token })).body as { id: number; name: string }[];

  /** Creates a web call of `assistantId` and opens its media stream, as the browser does. */
  async function dial(assistantId: number): Promise<{ callId: number; caller: MediaStreamClient }> {
    const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistantId } });
    expect(created.status).toBe(201);
    const caller = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
    caller.start();
    return { callId: created.body.data.call_id as number, caller };
  }

  const assistantLines = (caller: MediaStreamClient) => caller.received.filter((message) => message.transcript?.role === 'assistant');
  const heardGreeting = (caller: MediaStreamClient) => caller.waitFor(() => assistantLines(caller).length > 0, 10_000, 'the greeting');

  /** The media sockets the gateway holds, by its health route. */
  const openSessions = async () => ((await (await fetch(`${platform.mediaUrl!.replace(/^ws/, 'http')}/media/health`)).json()) as { sessions: number }).sessions;

  /**
   * Hangs up as a caller does (the protocol's `stop`) and waits until the gateway holds only `stillLive`
   * sockets: the session has closed its socket only after releasing its line.
   */
  async function hangUp(callers: MediaStreamClient[], stillLive = 0): Promise<void> {
    for (const caller of callers) caller.stop();
    await Promise.all(callers.map((caller) => caller.closed));
    await expect.poll(openSessions).toBe(stillLive);
  }

  it('refuses a call past MEDIA_MAX_CALLS with 1013 "All lines are busy", and takes one again once a line is free', async () => {
    const assistant = await createTestAssistant(platform, owner);
    const held = [await dial(assistant.id), await dial(assistant.id)];
    await Promise.all(held.map(({ caller }) => heardGreeting(caller)));

    const refused = await dial(assistant.id);
    expect(await refused.caller.closed).toEqual(BUSY);
    expect(refused.caller.received.filter((message) => message.event === 'media')).toEqual([]);

    await hangUp([held[0]!.caller], 1);
    const next = await dial(assistant.id);
    await heardGreeting(next.caller);
    expect(assistantLines(next.caller)[0]!.transcript!.text).toBe('Hello!');
    await hangUp([held[1]!.caller, next.caller]);
  });

  it('gives no line to sockets without a credential: 40 held and reopened do not keep real calls out, and each closes within 2 s', async () => {
    const assistant = await createTestAssistant(platform, owner);
    const url = `${platform.mediaUrl!}/media/web-call?token=${'x'.repeat(48)}`;
    const lifetimes: number[] = [];
    let holding = true;
    /** A socket that connects and never starts; reopened as soon as it is closed, while `holding`. */
    const hold = (): Promise<void> => new Promise((resolve) => {
      let opened = Date.now();
      const socket = new WebSocket(url);
      socket.on('error', () => undefined);
      socket.once('open', () => {
        opened = Date.now();
      });
      socket.once('close', () => {
        lifetimes.push(Date.now() - opened);
        resolve(holding ? hold() : undefined);
      });
    });
    const held = Array.from({ length: 40 }, hold);
    // One that starts with a credential that does not verify is refused, and takes no line either.
    const forged = await connectMediaStream(url, L16_16K);
    forged.start();
    expect((await forged.closed).code).toBe(4401);

    await new Promise((resolve) => setTimeout(resolve, 500));
    const callers = [await dial(assistant.id), await dial(assistant.id)];
    await Promise.all(callers.map(({ caller }) => heardGreeting(caller)));
    await new Promise((resolve) => setTimeout(resolve, 2000));
    holding = false;
    await Promise.all(held);
    await hangUp(callers.map(({ caller }) => caller));

    // Past 32 waiting from one address the oldest made room; none stayed much past its 2 s (the close takes its own
    // time on a loaded machine), where a socket without a start used to hold a line for 10 s.
    expect(lifetimes.length).toBeGreaterThan(40);
    expect(Math.max(...lifetimes)).toBeLessThan(5000);
    const closed = await platform.metrics.getSingleMetric('parley_media_unauthenticated_closed_total')!.get();
    const byReason = Object.fromEntries(closed.values.map((value) => [value.labels.reason, value.value]));
    expect(byReason).toMatchObject({ timeout: expect.any(Number), displaced: expect.any(Number), refused: 1 });
    expect((await platform.metrics.getSingleMetric('parley_media_unauthenticated_sockets')!.get()).values[0]!.value).toBe(0);
  }, 30_000);

  it("asks the language model with the assistant's model and temperature, and stores the call's turns as the API documents them", async () => {
    const models = await catalog('/user/assistants/models?type=llm');
    const chosen = models.find((model) => model.name === 'GPT-4o')!;
    const providerModel = (await knex()('language_models').where({ id: chosen.id }).first<{ providerModel: string }>('provider_model')).providerModel;
    expect(providerModel).not.toBe(platform.config.llm.defaultModel);
    const assistant = await createTestAssistant(platform, owner, { llm_model_id: chosen.id, llm_temperature: 0.35, wait_for_customer: true });

    const { callId, caller } = await dial(assistant.id);
    await caller.say(tone(QUESTION.pitch, 600));
    await caller.waitFor(() => assistantLines(caller).length > 0, 10_000, 'the reply');
    const asked = llm.requests.find((request) => request.messages.at(-1)?.content === QUESTION.text);
    expect(asked).toMatchObject({ model: providerModel, temperature: 0.35, stream: true });
    await hangUp([caller]);

    await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    const row = await knex()('calls').where({ id: callId }).first<{ answeredAt: Date; turns: { text: string }[] }>('answered_at', 'turns');
    expect(row.turns.map((turn) => turn.text)).toEqual([QUESTION.text, 'We open at nine.']);
    const read = await platform.request('GET', `/user/calls/${callId}`, { token: owner.token });
    expect(schemaViolations(CallItem, read.body)).toEqual([]);
    expect(read.body.turns).toEqual(row.turns);
    const [question, answer] = read.body.turns as { started_at: string; start_offset_ms: number; metrics: Record<string, number> }[];
    // Offsets count from the answer the call's row records, to the millisecond.
    for (const turn of [question!, answer!]) expect(Date.parse(turn.started_at) - turn.start_offset_ms).toBe(row.answeredAt.getTime());
    expect(question!.metrics).toEqual({});
    expect(answer!.metrics).toEqual({
      end_of_speech_to_first_audio_ms: expect.any(Number), end_of_turn_decision_ms: expect.any(Number), preemptive: expect.any(Number), preemptive_discarded: expect.any(Number), stt_final_delay_ms: expect.any(Number), llm_first_token_ms: expect.any(Number), tts_first_byte_ms: expect.any(Number),
      turn_model_score: 0.9,
    });
    expect(answer!.metrics.end_of_speech_to_first_audio_ms).toBeGreaterThan(0);
  });

  it("configures the speech-to-speech session with the assistant's model and its noise cancellation", async () => {
    const voice = (await catalog('/user/assistants/voices?mode=multimodal'))[0]!;
    const model = (await catalog('/user/assistants/models?type=multimodal'))[0]!;
    const providerModel = (await knex()('language_models').where({ id: model.id }).first<{ providerModel: string }>('provider_model')).providerModel;
    const multimodal = { mode: 'multimodal', voice_id: voice.id, llm_model_id: undefined, multimodal_model_id: model.id };

    for (const [enabled, noiseReduction] of [[true, { type: 'near_field' }], [false, null]] as const) {
      const assistant = await createTestAssistant(platform, owner, { ...multimodal, enable_noise_cancellation: enabled });
      const connected = realtime.nextSession();
      const { caller } = await dial(assistant.id);
      const session = await connected;
      // The greeting is asked for after the session's configuration, on the same socket.
      await heardGreeting(caller);
      expect(session.model).toBe(providerModel);
      expect(session.config.audio.input.noise_reduction, `enable_noise_cancellation: ${enabled}`).toEqual(noiseReduction);
      await hangUp([caller]);
    }
  });
});
