import type { ConversationMessage } from './model.ts';

/** A history item: `function_calls` only where the message has some. */
export function historyItem(message: ConversationMessage) {
  return {
    role: message.role,
    content: message.content,
    ...(message.functionCalls?.length ? { function_calls: message.functionCalls } : {}),
  };
}
