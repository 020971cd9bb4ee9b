import { Type } from '@sinclair/typebox';
import { FilledString, IdField } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

const FunctionCall = Type.Object({ name: Type.String(), arguments: Type.Record(Type.String(), Type.Unknown()), result: Type.Unknown() });

export const HistoryItem = Type.Object({
  role: Type.Union([Type.Literal('assistant'), Type.Literal('user')]),
  content: Type.String(),
  function_calls: Type.Optional(Type.Array(FunctionCall)),
  human: Type.Optional(Type.Literal(true, { description: 'Present on an operator\'s message (human takeover), which no model wrote.' })),
});

export const StartConversationBody = Type.Object({
  assistant_id: Type.String({ minLength: 1, maxLength: 64, description: "The assistant's UUID.", [MESSAGES]: { required: 'assistant_id is required', minLength: 'assistant_id is required' } }),
  type: Type.Optional(Type.String({ enum: ['widget', 'test'], default: 'widget', description: '`widget` is charged per user message; `test` is free.' })),
  variables: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'Values for {{name}} placeholders in the prompt and initial message.' })),
}, { additionalProperties: false });

export const StartedConversation = Type.Object({
  status: Type.Literal(true),
  conversation_id: Type.String({ format: 'uuid' }),
  history: Type.Array(HistoryItem),
});

/** The sender or the customer of a `whatsapp` conversation. */
const WhatsAppParty = Type.Object({ name: Type.Union([Type.String(), Type.Null()]), phone: Type.Union([Type.String(), Type.Null()]) });

export const ConversationHistory = Type.Object({
  status: Type.Literal(true),
  history: Type.Array(HistoryItem),
  variables: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  external_identifier: Type.Optional(Type.String({ description: 'The customer identifier of an `api` conversation (AI replies for other channels).' })),
  whatsapp_sender: Type.Optional(Type.Union([WhatsAppParty, Type.Null()], { description: 'A `whatsapp` conversation\'s sender.' })),
  customer: Type.Optional(WhatsAppParty),
  ai_enabled: Type.Boolean({ description: 'False while a person answers instead of the assistant (human takeover).' }),
});

/**
 * Any text: one that is no conversation's uuid, however long, is the documented 404 "Conversation not found"
 * (the services check the uuid's form before they query), never a 422 the anchor does not show.
 */
export const ConversationParams = Type.Object({ uuid: Type.String() });

/** A blank message is missing, as Laravel trims input; the text is stored as written. The operator's takes the same. */
export const SendMessageBody = Type.Object({
  message: FilledString({ maxLength: 2000, requiredText: 'message is required', maxLengthText: 'message may not be greater than 2000 characters' }),
}, { additionalProperties: false });

export const MessageReply = Type.Object({
  status: Type.Literal(true),
  message: Type.String({ description: "The assistant's reply; empty while a person answers instead (human takeover)." }),
  function_calls: Type.Array(FunctionCall),
  ai_enabled: Type.Optional(Type.Literal(false, { description: 'Present while the AI is disabled: the message was stored and a person will answer it.' })),
});

export const AiSwitched = Type.Object({ status: Type.Literal(true), ai_enabled: Type.Boolean() });

export const OperatorMessageBody = SendMessageBody;

export const OperatorMessage = Type.Object({
  status: Type.Literal(true),
  message: Type.Object({
    role: Type.Literal('assistant'),
    content: Type.String(),
    human: Type.Literal(true),
    created_at: Type.String({ examples: ['2025-06-30 11:53:20'] }),
  }),
});

/**
 * Blank strings are missing, as Laravel trims input; the identifier is trimmed too (" c1" is the customer "c1"),
 * the message is kept as written.
 */
export const GenerateReplyBody = Type.Object({
  assistant_id: IdField({ description: "The id of one of the caller's assistants." }),
  customer_identifier: FilledString({ maxLength: 255, description: 'The customer on the other channel (a phone number, an e-mail address, a CRM id): one conversation per assistant and identifier.' }),
  message: FilledString({ maxLength: 2000, description: "The customer's message." }),
  variables: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: "Merged into the conversation's variables, used as {{name}} in the prompt." })),
});

export const GeneratedReply = Type.Object({
  success: Type.Literal(true),
  conversation_id: Type.String({ format: 'uuid' }),
  customer_identifier: Type.String(),
  reply: Type.String({ description: 'Empty while a person has taken the conversation over (`ai_disabled`).' }),
  function_calls: Type.Array(FunctionCall),
  ai_disabled: Type.Boolean(),
});

export const ConversationListQuery = Type.Object({
  type: Type.Optional(Type.String({ enum: ['widget', 'test', 'api', 'whatsapp'] })),
  external_identifier: Type.Optional(Type.String({ maxLength: 255, description: 'The customer identifier of `api` conversations.' })),
  customer_phone: Type.Optional(Type.String({ maxLength: 32, description: 'The customer\'s number (E.164) of `whatsapp` conversations.' })),
  whatsapp_sender_phone: Type.Optional(Type.String({ maxLength: 32, description: 'The WhatsApp sender\'s number (E.164) of `whatsapp` conversations.' })),
  assistant_id: Type.Optional(Type.String({ maxLength: 64, description: "The assistant's UUID (or its integer id)." })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
});

export const ConversationListItem = Type.Object({
  id: Type.String({ format: 'uuid' }),
  assistant_id: Type.String({ format: 'uuid' }),
  assistant_name: Type.String(),
  type: Type.String(),
  variables: Type.Record(Type.String(), Type.Unknown()),
  external_identifier: Type.Optional(Type.String()),
  whatsapp_sender: Type.Optional(WhatsAppParty),
  customer: Type.Optional(WhatsAppParty),
  message_count: Type.Integer(),
  total_cost: Type.Number(),
  ai_enabled: Type.Boolean(),
  created_at: Type.String({ examples: ['2025-06-30 11:53:20'] }),
  updated_at: Type.String(),
});

export const ConversationList = Type.Object({
  data: Type.Array(ConversationListItem),
  path: Type.String(),
  per_page: Type.Integer(),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  next_page_url: Type.Union([Type.String(), Type.Null()]),
  prev_cursor: Type.Union([Type.String(), Type.Null()]),
  prev_page_url: Type.Union([Type.String(), Type.Null()]),
});
