import { Type } from '@sinclair/typebox';
import { MESSAGES } from '../../api/validation.ts';

const FunctionCall = Type.Object({ name: Type.String(), arguments: Type.Record(Type.String(), Type.Unknown()), result: Type.Unknown() });

export const HistoryItem = Type.Object({
  role: Type.Union([Type.Literal('assistant'), Type.Literal('user')]),
  content: Type.String(),
  function_calls: Type.Optional(Type.Array(FunctionCall)),
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

export const ConversationHistory = Type.Object({
  status: Type.Literal(true),
  history: Type.Array(HistoryItem),
  variables: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
});

export const ConversationParams = Type.Object({ uuid: Type.String({ maxLength: 64 }) });

export const SendMessageBody = Type.Object({
  message: Type.String({ minLength: 1, maxLength: 2000, [MESSAGES]: { required: 'message is required', minLength: 'message is required', maxLength: 'message may not be greater than 2000 characters' } }),
}, { additionalProperties: false });

export const MessageReply = Type.Object({
  status: Type.Literal(true),
  message: Type.String(),
  function_calls: Type.Array(FunctionCall),
});

export const ConversationListQuery = Type.Object({
  type: Type.Optional(Type.String({ enum: ['widget', 'test'] })),
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
