import { WorkflowNotFoundError } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { zonedIsoTimestamp } from '../../src/lib/time.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { verifySignature } from '../../src/webhooks/signature.ts';
import type { FakeLlmServer } from '../fakes/llm-server.ts';
import type { TestPlatform } from '../support/platform.ts';
import { ownerWithWebhook as ownerWithAssistantWebhook, startWebhookPlatform, webhookReceiver as receiver } from '../support/webhooks.ts';
import { createTestSender } from '../support/whatsapp.ts';

// CONVERSATION_INACTIVITY_UNIT=second: an assistant's conversation_inactivity_timeout of 2 is two seconds.
const TIMEOUT_SECONDS = 2;
const now = () => Math.floor(Date.now() / 1000);

describe('the conversation-ended webhook (W2), sent by the real worker when a widget or WhatsApp chat goes quiet', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    ({ llm, platform } = await startWebhookPlatform({ CONVERSATION_INACTIVITY_UNIT: 'second' }));
  });
  afterAll(async () => {
    await platform.close();
    await llm.close();
  });

  const knex = () => platform.database.knex;

  /** An owner in Berlin whose assistant posts its conversation-ended webhook to `url`. */
  const ownerWithWebhook = (url: string, settings: Record<string, unknown> = {}) => ownerWithAssistantWebhook(platform, 'enable-conversation-ended-webhook', url, {
    timezone: 'Europe/Berlin',
    settings: {
      conversation_inactivity_timeout: TIMEOUT_SECONDS,
      post_call_schema: [{ name: 'intent', type: 'string', description: 'What the customer wanted.' }],
      ...settings,
    },
  });

  async function say(uuid: string, message: string, reply: string) {
    llm.script({ reply });
    const answer = await platform.request('POST', `/conversations/${uuid}/messages`, { body: { message } });
    expect(answer.body).toMatchObject({ status: true, message: reply });
  }

  /** When the conversation's last message was stored, in ms. */
  const lastMessageAt = async (conversationId: number) =>
    ((await knex()('conversation_messages').where({ conversationId }).orderBy('id', 'desc').first()).createdAt as Date).getTime();

  it('posts every field of §13.2, signed, a timeout after the last message (a message in between puts it off)', async () => {
    const hooks = await receiver();
    const { owner, assistant } = await ownerWithWebhook(hooks.url);
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid, variables: { customer_name: 'Ada' } } });
    const uuid = started.body.conversation_id as string;
    const row = await knex()('conversations').where({ uuid }).first();

    await say(uuid, 'Where is my order?', 'Let me look.');
    // Most of a period passes, then a second message: the first period never ends.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hooks.received).toHaveLength(0);
    await say(uuid, 'Order 42, please.', 'It ships tomorrow.');
    llm.script({ toolCalls: [{ name: 'record_call_evaluation', arguments: { intent: 'order status' } }] });
    const quietFrom = await lastMessageAt(row.id);

    const [hook] = await hooks.arrived(1);
    expect(hook!.at - quietFrom).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    const ended = await knex()('conversations').where({ uuid }).first();
    expect(ended.endedAt).toBeInstanceOf(Date);
    expect(ended.evaluation).toEqual({ intent: 'order status' });
    const messages = await knex()('conversation_messages').where({ conversationId: row.id }).orderBy('id');
    const payload = JSON.parse(hook!.body) as Record<string, unknown>;
    expect(Object.keys(payload)).toEqual([
      'id', 'conversation_id', 'assistant_id', 'type', 'message_count', 'status', 'extracted_variables', 'input_variables', 'transcript',
      'formatted_transcript', 'attachments', 'customer_phone', 'customer_name', 'sender', 'created_at', 'ended_at',
    ]);
    expect(payload).toEqual({
      id: row.id,
      conversation_id: uuid,
      assistant_id: assistant.uuid,
      type: 'widget',
      message_count: 5,
      status: 'ended',
      extracted_variables: { intent: 'order status' },
      input_variables: { customer_name: 'Ada' },
      transcript: messages.map((message: { role: string; content: string; createdAt: Date }) => ({
        role: message.role,
        content: message.content,
        timestamp: zonedIsoTimestamp(message.createdAt, 'Europe/Berlin'),
        timestamp_unix: Math.floor(message.createdAt.getTime() / 1000),
      })),
      formatted_transcript: 'AI: Hello!\nCustomer: Where is my order?\nAI: Let me look.\nCustomer: Order 42, please.\nAI: It ships tomorrow.',
      attachments: [],
      customer_phone: null,
      customer_name: 'Ada',
      sender: null,
      created_at: (row.createdAt as Date).toISOString(),
      ended_at: (ended.endedAt as Date).toISOString(),
    });
    expect((payload.transcript as { timestamp: string }[])[0]!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+01:00$/);
    // The evaluation read the chat, with the assistant's schema.
    const evaluation = llm.requests.find((request) => request.tools?.some((tool) => tool.function.name === 'record_call_evaluation'));
    expect(JSON.stringify(evaluation?.messages)).toContain('Customer: Order 42, please.');

    expect(hook!.headers['x-parley-event']).toBe('conversation.ended');
    expect(hook!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    const secret = (await platform.request('GET', '/user/webhook-signing-secret', { token: owner.token })).body.data.secret as string;
    expect(verifySignature(hook!.headers['x-parley-signature'] as string, hook!.body, secret, now())).toBe(true);
    const logOf = async () => (await platform.request('GET', `/user/webhook-deliveries?assistant_id=${assistant.id}`, { token: owner.token })).body;
    // The attempt is stored once the receiver has answered.
    await expect.poll(async () => (await logOf()).data.map((entry: { status: string }) => entry.status)).toEqual(['delivered']);
    const log = await logOf();
    expect(log.data[0]).toMatchObject({ kind: 'conversation.ended', conversation_id: row.id, status: 'delivered', payload, attempts_count: 1 });
    // Delivered by the activity that queued it: no delivery workflow was started.
    await expect(platform.temporal.client.workflow.getHandle(workflowIds.webhookDelivery(log.data[0].id as number)).describe())
      .rejects.toBeInstanceOf(WorkflowNotFoundError);
  });

  it('posts a WhatsApp conversation with its customer and sender a timeout after the assistant\'s reply', async () => {
    const customer = '+4915112345678';
    const hooks = await receiver();
    const owner = await createTestSender(platform, {
      assistantSettings: { conversation_inactivity_timeout: TIMEOUT_SECONDS, post_call_schema: [{ name: 'intent', type: 'string', description: 'What the customer wanted.' }] },
    });
    await knex()('users').where({ id: owner.user.id }).update({ timezone: 'Europe/Berlin' });
    const enabled = await platform.request('POST', '/user/assistants/enable-conversation-ended-webhook', { token: owner.user.token, body: { assistant_id: owner.assistant.id, webhook_url: hooks.url } });
    expect(enabled.status, enabled.text).toBe(200);

    // The customer writes from the sandbox carrier's WhatsApp phone; the sender's assistant answers.
    llm.script({ reply: 'Hi Ada! It shipped this morning.' });
    const written = await platform.sandboxCarrier!.whatsapp.receive({ sender: owner.sender.phone_number, phone: customer, name: 'Ada', body: 'Has my order shipped?' });
    expect(written.answered).toBe(200);
    llm.script({ toolCalls: [{ name: 'record_call_evaluation', arguments: { intent: 'order status' } }] });
    const row = await knex()('conversations').where({ whatsappSenderId: owner.sender.id }).first();
    const quietFrom = await lastMessageAt(row.id);

    const [hook] = await hooks.arrived(1);
    expect(hook!.at - quietFrom).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    const ended = await knex()('conversations').where({ id: row.id }).first();
    expect(ended.endedAt).toBeInstanceOf(Date);
    const messages = await knex()('conversation_messages').where({ conversationId: row.id }).orderBy('id');
    expect(JSON.parse(hook!.body)).toEqual({
      id: row.id,
      conversation_id: row.uuid,
      assistant_id: owner.assistant.uuid,
      type: 'whatsapp',
      message_count: 2,
      status: 'ended',
      extracted_variables: { intent: 'order status' },
      input_variables: { customer_phone: customer, customer_name: 'Ada' },
      transcript: messages.map((message: { role: string; content: string; createdAt: Date }) => ({
        role: message.role,
        content: message.content,
        timestamp: zonedIsoTimestamp(message.createdAt, 'Europe/Berlin'),
        timestamp_unix: Math.floor(message.createdAt.getTime() / 1000),
      })),
      formatted_transcript: 'Customer: Has my order shipped?\nAI: Hi Ada! It shipped this morning.',
      attachments: [],
      customer_phone: customer,
      customer_name: 'Ada',
      sender: { phone_number: owner.sender.phone_number, display_name: 'Acme Support' },
      created_at: (row.createdAt as Date).toISOString(),
      ended_at: (ended.endedAt as Date).toISOString(),
    });
    expect(hook!.headers['x-parley-event']).toBe('conversation.ended');
    const secret = (await platform.request('GET', '/user/webhook-signing-secret', { token: owner.user.token })).body.data.secret as string;
    expect(verifySignature(hook!.headers['x-parley-signature'] as string, hook!.body, secret, now())).toBe(true);
  });

  it("restarts the quiet period on an operator's message as on a user's, and reopens an ended conversation with it", async () => {
    const hooks = await receiver();
    const { owner, assistant } = await ownerWithWebhook(hooks.url, { post_call_evaluation: false });
    const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } });
    const uuid = started.body.conversation_id as string;
    const row = await knex()('conversations').where({ uuid }).first();
    const operatorSays = async (message: string) => {
      const sent = await platform.request('POST', `/user/conversations/${uuid}/messages`, { token: owner.token, body: { message } });
      expect(sent.status).toBe(201);
    };

    await say(uuid, 'Can I talk to a person?', 'Let me find someone.');
    // Most of a period passes, then an operator answers: the period the user's message started never ends.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hooks.received).toHaveLength(0);
    await operatorSays('Hi, this is Maria from support.');
    const quietFrom = await lastMessageAt(row.id);
    const [hook] = await hooks.arrived(1);
    expect(hook!.at - quietFrom).toBeGreaterThanOrEqual(TIMEOUT_SECONDS * 1000);
    expect(JSON.parse(hook!.body)).toMatchObject({ message_count: 4, formatted_transcript: expect.stringMatching(/\nAI: Hi, this is Maria from support\.$/) });
    const run = platform.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
    await run.result();
    const firstRunId = (await run.describe()).runId;

    // After the end, the operator's message reopens the conversation and a new period ends it again.
    await operatorSays('Are you still there?');
    expect((await knex()('conversations').where({ uuid }).first()).endedAt).toBeNull();
    const second = platform.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
    await expect.poll(async () => (await second.describe()).runId).not.toBe(firstRunId);
    expect(await second.result()).toMatchObject({ periods: 1 });
    expect((await knex()('conversations').where({ uuid }).first()).endedAt).toBeInstanceOf(Date);
  });

  it('reopens on a message after the end; announces the next quiet period only with conversation_ended_retrigger', async () => {
    for (const retrigger of [false, true]) {
      const hooks = await receiver();
      const { assistant } = await ownerWithWebhook(hooks.url, { conversation_ended_retrigger: retrigger, post_call_evaluation: false });
      const started = await platform.request('POST', '/conversations', { body: { assistant_id: assistant.uuid } });
      const uuid = started.body.conversation_id as string;
      await say(uuid, 'Hi.', 'Hello again.');
      await hooks.arrived(1);
      const run = platform.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
      await run.result();
      const firstRunId = (await run.describe()).runId;

      await say(uuid, 'One more thing.', 'Sure.');
      expect((await knex()('conversations').where({ uuid }).first()).endedAt).toBeNull();
      // The new period's run ends the conversation again; only then is it known whether W2 went out twice.
      const second = platform.temporal.client.workflow.getHandle(workflowIds.conversation(uuid));
      await expect.poll(async () => (await second.describe()).runId).not.toBe(firstRunId);
      expect(await second.result()).toMatchObject({ periods: 1 });
      expect((await knex()('conversations').where({ uuid }).first()).endedAt).toBeInstanceOf(Date);
      if (retrigger) {
        const [, again] = await hooks.arrived(2);
        expect(JSON.parse(again!.body)).toMatchObject({ message_count: 5, extracted_variables: {}, formatted_transcript: expect.stringMatching(/Customer: One more thing\.\nAI: Sure\.$/) });
      } else {
        expect(hooks.received).toHaveLength(1);
      }
    }
  });
});
