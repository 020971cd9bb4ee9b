import { afterAll, beforeAll, describe, expect, inject, it, onTestFinished } from 'vitest';
import { createActivities } from '../../activities/index.ts';
import { createLogger } from '../../src/logger.ts';
import { startClaimedTimer } from '../../src/resources/conversations/quiet-timer.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startWorker } from '../../src/temporal/worker.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { ownerWithWebhook, webhookReceiver as receiver } from '../support/webhooks.ts';

// CONVERSATION_INACTIVITY_UNIT=second: an assistant's conversation_inactivity_timeout of 2 is two seconds.
const TIMEOUT_SECONDS = 2;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The inactivity timer of a widget conversation as the API keeps it (resources/conversations/quiet-timer.ts):
 * the first message starts it, later ones only write their time, and the worker reads that time when it wakes.
 * The worker here is started and stopped by the tests.
 */
describe('the inactivity timer of a widget conversation', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  const knex = () => platform.database.knex;
  const worker = () => startWorker({
    config: platform.config,
    address: platform.config.temporal.address ?? '',
    activities: createActivities({ knex: knex(), logger: createLogger(platform.config), config: platform.config, providers: platform.providers, temporal: platform.temporal }),
    logger: createLogger(platform.config),
    workflowBundlePath: inject('workflowBundlePath'),
  });

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    platform = await startTestPlatform({
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1', CONVERSATION_INACTIVITY_UNIT: 'second' },
    });
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  /** A widget conversation of an assistant whose conversation-ended webhook posts to `url`. */
  async function chat(url: string) {
    const { assistant } = await ownerWithWebhook(platform, 'enable-conversation-ended-webhook', url, {
      settings: { conversation_inactivity_timeout: TIMEOUT_SECONDS, post_call_evaluation: false },
    });
    const uuid = (await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } })).body.conversation_id as string;
    const say = async (message: string) => {
      llm.script({ reply: `About "${message}": noted.` });
      const answer = await platform.request('POST', `/conversations/${uuid}/messages`, { body: { message } });
      expect(answer.status, answer.text).toBe(200);
    };
    const run = () => platform.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
    const signals = async () => ((await run().fetchHistory()).events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
    const row = async () => knex()('conversations').where({ uuid }).first();
    return { uuid, say, run, signals, row };
  }

  it('costs Temporal one start for a chat of many messages, puts the end off with each, and sends one webhook a timeout after the last', async () => {
    const first = await worker();
    onTestFinished(() => first.stop());
    const hooks = await receiver();
    const { say, run, signals, row } = await chat(hooks.url);

    for (const message of ['Hi.', 'Where is my order?', 'Order 42.', 'Thanks.']) {
      await say(message);
      await pause(600);
    }
    // Four user messages and four replies: the first message started the timer, the seven after it only wrote their time.
    expect(await signals()).toBe(1);
    expect((await row()).quietTimerAt).toBeInstanceOf(Date);
    const [hook] = await hooks.arrived(1);
    const ended = await row();
    expect(hook!.at - (ended.lastMessageAt as Date).getTime()).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    expect(JSON.parse(hook!.body)).toMatchObject({ message_count: 9, status: 'ended' });
    expect(await run().result()).toEqual({ periods: 1, deliveries: [expect.any(Number)] });
    expect(ended).toMatchObject({ endedAt: expect.any(Date), quietTimerAt: null });
    // The period is announced once: nothing more comes.
    await pause(TIMEOUT_SECONDS * 1000);
    expect(hooks.received).toHaveLength(1);
  });

  it('keeps the timer across a worker restart: the next worker wakes it, and the messages sent meanwhile put the end off', async () => {
    const first = await worker();
    const hooks = await receiver();
    const { say, run, signals, row } = await chat(hooks.url);
    await say('Hello?');
    // The run starts a timeout later (its start delay), whichever worker is there then.
    await expect.poll(async () => ((await run().fetchHistory()).events ?? []).some((event) => event.workflowExecutionStartedEventAttributes)).toBe(true);
    await first.stop();

    // While no worker runs, the chat goes on; the timer it started has nothing to hear of it.
    await pause(1000);
    await say('Still there?');
    await pause(1500);
    expect(hooks.received).toHaveLength(0);
    const second = await worker();
    onTestFinished(() => second.stop());

    const [hook] = await hooks.arrived(1);
    expect(hook!.at - ((await row()).lastMessageAt as Date).getTime()).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    expect(JSON.parse(hook!.body)).toMatchObject({ message_count: 5 });
    expect(await run().result()).toMatchObject({ periods: 1 });
    expect(await signals()).toBe(1);
  });

  it('starts a timer again when the one claimed was lost: its start failed, or its conversation should have ended long ago', async () => {
    const running = await worker();
    onTestFinished(() => running.stop());
    const hooks = await receiver();
    const { say, run, row } = await chat(hooks.url);
    const conversation = await row();
    // A start that fails gives the claim back, so that the next message claims it again.
    await knex()('conversations').where({ id: conversation.id }).update({ quietTimerAt: knex().fn.now() });
    startClaimedTimer({ knex: knex(), logger: createLogger(platform.config), startQuietTimer: () => Promise.reject(new Error('Temporal is down')) }, {
      id: conversation.id, uuid: conversation.uuid, userId: conversation.userId, assistantId: conversation.assistantId, inactivityTimeoutMinutes: TIMEOUT_SECONDS,
    });
    await expect.poll(async () => (await row()).quietTimerAt).toBeNull();

    // A claim whose timer never ran (the process died before starting it) holds until the message before the next
    // one is older than the timeout and a minute more: that message starts a timer.
    await knex()('conversations').where({ id: conversation.id }).update({ quietTimerAt: knex().raw("now() - interval '10 minutes'"), lastMessageAt: knex().raw("now() - interval '4 minutes'") });
    await say('Is anyone there?');
    const [hook] = await hooks.arrived(1);
    expect(hook!.at - ((await row()).lastMessageAt as Date).getTime()).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    expect(await run().result()).toMatchObject({ periods: 1 });
  });
});
