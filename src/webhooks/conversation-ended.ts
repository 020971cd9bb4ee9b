import { callTranscript } from '../agent/transcript.ts';
import { zonedIsoTimestamp } from '../lib/time.ts';

/**
 * The conversation-ended webhook's body (W2, anchor-api.md §13.2), every field, from what the conversation's
 * records hold. Pure: the activity reads the rows.
 */

export interface ConversationEndedFacts {
  conversation: {
    id: number;
    uuid: string;
    type: 'widget' | 'whatsapp';
    /** A WhatsApp conversation's customer (a widget's comes from its input variables, when it hands them over). */
    customerPhone: string | null;
    customerName: string | null;
    messageCount: number;
    variables: Record<string, unknown>;
    evaluation: Record<string, unknown> | null;
    createdAt: Date;
    endedAt: Date;
  };
  assistantUuid: string;
  /** A WhatsApp conversation's sender. */
  sender: { phoneNumber: string; displayName: string } | null;
  /** The account's IANA time zone: the transcript's `timestamp`s read in it. */
  timeZone: string;
  /** Oldest first. */
  messages: { role: 'user' | 'assistant'; content: string; createdAt: Date }[];
}

/** A string input variable, or null: how a widget that knows its visitor hands over a name or number. */
function stringVariable(variables: Record<string, unknown>, name: string): string | null {
  const value = variables[name];
  return typeof value === 'string' && value.trim() !== '' ? value : null;
}

export function conversationEndedPayload({ conversation, assistantUuid, sender, timeZone, messages }: ConversationEndedFacts): Record<string, unknown> {
  return {
    id: conversation.id,
    conversation_id: conversation.uuid,
    assistant_id: assistantUuid,
    type: conversation.type,
    message_count: conversation.messageCount,
    status: 'ended',
    extracted_variables: conversation.evaluation ?? {},
    input_variables: conversation.variables,
    transcript: messages.map((message) => ({
      role: message.role,
      content: message.content,
      timestamp: zonedIsoTimestamp(message.createdAt, timeZone),
      timestamp_unix: Math.floor(message.createdAt.getTime() / 1000),
    })),
    formatted_transcript: callTranscript(messages.map((message) => ({ role: message.role, text: message.content }))),
    // Parley's chats carry no files (WhatsApp media is not taken in): the key is there, empty, for one parser of all.
    attachments: [],
    customer_phone: conversation.customerPhone ?? stringVariable(conversation.variables, 'customer_phone'),
    customer_name: conversation.customerName ?? stringVariable(conversation.variables, 'customer_name'),
    sender: sender ? { phone_number: sender.phoneNumber, display_name: sender.displayName } : null,
    created_at: conversation.createdAt.toISOString(),
    ended_at: conversation.endedAt.toISOString(),
  };
}
