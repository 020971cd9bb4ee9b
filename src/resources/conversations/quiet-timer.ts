import type { Knex } from 'knex';
import type { Logger } from '../../logger.ts';

/**
 * The inactivity timer of a widget or WhatsApp conversation (W2; workflows/conversation-inactivity.ts), as the
 * statements that store its messages keep it: each writes the message's time, `last_message_at`, which the timer
 * reads when it wakes, and only a message that finds no timer running claims `quiet_timer_at` and starts one. A
 * chat's messages therefore cost Temporal nothing while its timer runs (docs/decisions.md).
 */

/** A conversation whose inactivity timer a message claimed, and how long it may stay quiet. */
export interface QuietConversation {
  id: number;
  uuid: string;
  userId: number;
  assistantId: number;
  /** The assistant's `conversation_inactivity_timeout`. */
  inactivityTimeoutMinutes: number;
}

/**
 * The assignments a statement that stores a message makes on the conversation's row (`conversations`, not
 * aliased). It claims the timer when none runs; or when the one that runs should have ended the conversation a
 * minute ago, going by the message before this one (its start was lost, or its workflow failed): starting a
 * timer that runs already only signals it. The time never goes back: of two messages stored at once, the one
 * whose transaction began first may commit last. The timeout counts in minutes here whatever
 * CONVERSATION_INACTIVITY_UNIT says, the longest the unit can be, so a running timer is never taken for lost.
 */
export const MESSAGE_STORED_SET = `last_message_at = greatest(conversations.last_message_at, now()),
  quiet_timer_at = case
    when conversations.type in ('widget', 'whatsapp') and (conversations.quiet_timer_at is null
      or conversations.last_message_at < now() - interval '1 minute' * (1 + (
        select a.conversation_inactivity_timeout from assistants a where a.id = conversations.assistant_id)))
    then now() else conversations.quiet_timer_at end`;

/** Returned by such a statement: whether it claimed the timer, which its caller must then start. */
export const CLAIMED_TIMER = 'conversations.quiet_timer_at = now()';

export interface QuietTimerDeps {
  knex: Knex;
  logger: Logger;
  /**
   * Starts the conversation's timer (one signal-with-start of `conversation-<uuid>`), told without being awaited,
   * only after a statement claimed it.
   */
  startQuietTimer?: (conversation: QuietConversation) => Promise<void>;
}

/**
 * Starts the timer a message claimed, without waiting: the chat is never slower for it, nor failed by it. A start
 * that fails gives the claim back, so the next message tries again; had it started after all, that one only
 * signals it.
 */
export function startClaimedTimer(deps: QuietTimerDeps, conversation: QuietConversation): void {
  if (!deps.startQuietTimer) return;
  deps.startQuietTimer(conversation).catch(async (error: unknown) => {
    deps.logger.warn({ err: error, conversationId: conversation.id }, "the conversation's inactivity timer could not be started");
    try {
      await deps.knex('conversations').where({ id: conversation.id }).update({ quietTimerAt: null });
    } catch (releaseError) {
      deps.logger.warn({ err: releaseError, conversationId: conversation.id }, "the conversation's inactivity timer could not be given back");
    }
  });
}
