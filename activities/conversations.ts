import type { Knex } from 'knex';
import type { EvaluationField } from '../src/agent/evaluation.ts';
import { callTranscript } from '../src/agent/transcript.ts';
import type { EndedConversation, QueuedConversationEndedWebhook, QuietCheck } from '../src/temporal/shared.ts';
import { conversationEndedPayload, type ConversationEndedFacts } from '../src/webhooks/conversation-ended.ts';
import { recordWebhookEvent } from '../src/webhooks/deliveries.ts';
import { evaluateRecord, evaluationColumns, type EvaluationDependencies } from './call-evaluation.ts';
import { cancellationSignal } from './calls.ts';
import { createWebhookAttempts, type WebhookAttemptDependencies } from './webhook-attempts.ts';

interface EndingRow {
  conversationEndedWebhookUrl: string | null;
  postCallEvaluation: boolean;
  userMessages: number;
}

/** The conversation as its inactivity timer reads it when it wakes, locked until it is ended or left. */
interface WakingRow extends EndingRow {
  /** Milliseconds until the assistant's timeout has passed since the last message; 0 when it has. */
  remainingMs: number;
  /** Ended after its last message: by an earlier wake (the end of a call the assistant ended is its last message's time). */
  endedSince: boolean;
}

/** Whether the assistant sends the conversation-ended webhook, and wants the conversation evaluated first. */
function ending(row: EndingRow): EndedConversation {
  const webhook = row.conversationEndedWebhookUrl !== null;
  return { outcome: 'ended', webhook, evaluate: webhook && row.postCallEvaluation && row.userMessages > 0 };
}

interface ConversationRow {
  id: number;
  uuid: string;
  userId: number;
  assistantId: number;
  type: string;
  customerPhone: string | null;
  customerName: string | null;
  senderPhone: string | null;
  senderName: string | null;
  messageCount: number;
  variables: Record<string, unknown>;
  evaluation: Record<string, unknown> | null;
  createdAt: Date;
  endedAt: Date | null;
  assistantUuid: string;
  conversationEndedWebhookUrl: string | null;
  conversationEndedRetrigger: boolean;
  timezone: string;
}

type StoredMessage = ConversationEndedFacts['messages'][number];

async function messagesOf(knex: Knex, conversationId: number): Promise<StoredMessage[]> {
  return knex('conversation_messages').where({ conversationId }).orderBy('id').select<StoredMessage[]>('role', 'content', 'createdAt');
}

/**
 * The end of a widget or WhatsApp conversation's quiet period (workflows/conversation-inactivity.ts): mark it ended, evaluate
 * it, queue its conversation-ended webhook (W2). Each is safe to retry.
 */
export function createConversationActivities(deps: EvaluationDependencies & WebhookAttemptDependencies & {
  /** What one unit of an assistant's `conversation_inactivity_timeout` lasts (CONVERSATION_INACTIVITY_UNIT). */
  inactivityUnitMs: number;
}) {
  const { knex } = deps;
  const attempts = createWebhookAttempts(deps);
  const userMessages = "(select count(*)::int from conversation_messages m where m.conversation_id = c.id and m.role = 'user')";

  return {
    /**
     * The inactivity timer's wake (workflows/conversation-inactivity.ts): when the conversation has been quiet for
     * its assistant's timeout since its last message, marks it ended (an end the assistant called keeps its time)
     * and gives its timer back, so the next message starts another; otherwise answers how long the period has
     * left. The row is locked meanwhile: a message stored at the same moment either comes first (and the period
     * goes on) or finds no timer (and starts one).
     */
    async endQuietConversation({ conversationId }: { conversationId: number }): Promise<QuietCheck> {
      return knex.transaction(async (trx) => {
        const { rows: [row] } = await trx.raw<{ rows: WakingRow[] }>(`
          select a.conversation_ended_webhook_url as "conversationEndedWebhookUrl", a.post_call_evaluation as "postCallEvaluation",
            ${userMessages} as "userMessages",
            greatest(0, ceil(extract(epoch from coalesce(c.last_message_at, c.created_at)
              + a.conversation_inactivity_timeout * ? * interval '1 millisecond' - now()) * 1000))::float8 as "remainingMs",
            coalesce(c.ended_at > c.last_message_at, false) as "endedSince"
          from conversations c join assistants a on a.id = c.assistant_id
          where c.id = ?
          for update of c`,
        [deps.inactivityUnitMs, conversationId]);
        if (!row) return { outcome: 'gone' };
        if (row.remainingMs > 0) return { outcome: 'active', remainingMs: row.remainingMs };
        await trx('conversations').where({ id: conversationId }).update({ endedAt: trx.raw('coalesce(ended_at, now())'), quietTimerAt: null });
        return row.endedSince ? { outcome: 'already_ended' } : ending(row);
      });
    },

    /**
     * Marks the conversation ended at once (an end the assistant called keeps its time), whether or not the
     * assistant sends the conversation-ended webhook, and says whether it does and whether it wants the
     * conversation evaluated first (`post_call_evaluation`, and the visitor said something). The step of the
     * timers started before they read the last message's time (endQuietConversation), for runs still in flight.
     */
    async endConversation({ conversationId }: { conversationId: number }): Promise<EndedConversation> {
      const row = await knex('conversations as c')
        .join('assistants as a', 'a.id', 'c.assistant_id')
        .where('c.id', conversationId)
        .first<EndingRow | undefined>('a.conversation_ended_webhook_url', 'a.post_call_evaluation', knex.raw(`${userMessages} as user_messages`));
      if (!row) return { outcome: 'gone' };
      await knex('conversations').where({ id: conversationId }).update({ endedAt: knex.raw('coalesce(ended_at, now())'), quietTimerAt: null });
      return ending(row);
    },

    /** The post-conversation evaluation, as a call's (call-evaluation.ts); a failing model leaves none and is logged. */
    async evaluateConversation({ conversationId }: { conversationId: number }): Promise<{ evaluated: boolean }> {
      return evaluateRecord(deps, {
        table: 'conversations',
        id: conversationId,
        subject: 'chat conversation',
        read: async () => {
          const assistant = await evaluationColumns(knex, 'conversations', conversationId)
            .first<{ systemPrompt: string | null; postCallSchema: EvaluationField[] | null; modelName: string | null; language: string | null } | undefined>(
              'a.system_prompt', 'a.post_call_schema', 'm.provider_model as model_name', 'l.name as language',
            );
          if (!assistant) return undefined;
          return { ...assistant, transcript: callTranscript((await messagesOf(knex, conversationId)).map((message) => ({ role: message.role, text: message.content }))) };
        },
      }, cancellationSignal());
    },

    /**
     * Queues the conversation-ended webhook (W2) of the quiet period that just ended, when the assistant's webhook
     * is on, and makes its first attempt. Once per quiet period: a retried attempt finds the delivery it queued
     * (one recorded after the last message), and the first attempt it made if it was stored. Without
     * `conversation_ended_retrigger`, once per conversation: a conversation that went quiet again after more
     * messages is not announced again.
     */
    async queueConversationEndedWebhook({ conversationId }: { conversationId: number }): Promise<QueuedConversationEndedWebhook> {
      const row = await knex('conversations as c')
        .join('assistants as a', 'a.id', 'c.assistant_id')
        .join('users as u', 'u.id', 'c.user_id')
        .leftJoin('whatsapp_senders as s', 's.id', 'c.whatsapp_sender_id')
        .where('c.id', conversationId)
        .first<ConversationRow | undefined>(
          'c.id', 'c.uuid', 'c.user_id', 'c.assistant_id', 'c.type', 'c.message_count', 'c.variables', 'c.evaluation', 'c.created_at', 'c.ended_at',
          'c.customer_phone', 'c.customer_name', 's.phone_number as sender_phone', 's.display_name as sender_name',
          'a.uuid as assistant_uuid', 'a.conversation_ended_webhook_url', 'a.conversation_ended_retrigger', 'u.timezone',
        );
      if (!row || (row.type !== 'widget' && row.type !== 'whatsapp')) return { outcome: 'skipped', reason: 'deleted' };
      // A message came after the end: the conversation is open again, and its workflow waits out the new quiet period.
      if (row.endedAt === null) return { outcome: 'skipped', reason: 'reopened' };
      if (row.conversationEndedWebhookUrl === null) return { outcome: 'skipped', reason: 'webhook_off' };
      const owner = { userId: row.userId, assistantId: row.assistantId };
      const messages = await messagesOf(knex, conversationId);
      const lastMessageAt = messages.at(-1)?.createdAt ?? row.createdAt;
      const queued = await knex('webhook_deliveries').where({ conversationId, kind: 'conversation.ended' }).whereNull('redeliveryOf')
        .orderBy('id', 'desc').first<{ id: number; eventId: string; createdAt: Date } | undefined>('id', 'eventId', 'createdAt');
      if (queued && queued.createdAt >= lastMessageAt) {
        return { outcome: 'queued', deliveryId: queued.id, eventId: queued.eventId, ...owner, first: await attempts.first(queued.id, undefined) };
      }
      if (queued && !row.conversationEndedRetrigger) return { outcome: 'skipped', reason: 'sent_before' };
      const payload = conversationEndedPayload({
        conversation: { ...row, type: row.type, endedAt: row.endedAt },
        assistantUuid: row.assistantUuid,
        sender: row.senderPhone !== null && row.senderName !== null ? { phoneNumber: row.senderPhone, displayName: row.senderName } : null,
        timeZone: row.timezone,
        messages,
      });
      const recorded = await recordWebhookEvent(knex, { ...owner, conversationId, kind: 'conversation.ended', url: row.conversationEndedWebhookUrl, payload });
      return { outcome: 'queued', ...recorded, ...owner, first: await attempts.first(recorded.deliveryId, undefined) };
    },
  };
}
