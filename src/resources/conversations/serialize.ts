import type { ConversationMessage } from './model.ts';

/** A history item: `function_calls` only where the message has some, `human: true` only on an operator's message. */
export function historyItem(message: Pick<ConversationMessage, 'role' | 'content' | 'functionCalls' | 'human'>) {
  return {
    role: message.role,
    content: message.content,
    ...(message.functionCalls?.length ? { function_calls: message.functionCalls } : {}),
    ...(message.human ? { human: true } : {}),
  };
}
