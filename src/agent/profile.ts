import type { LineToolSpec } from './line-tools.ts';
import type { HttpToolSpec } from './tools.ts';

/**
 * What the dialogue core needs to know about an assistant, for a chat or a call alike: plain data, loaded by the
 * caller (resources/assistants/profile.ts) with the tools' headers already decrypted.
 */
export interface AgentProfile {
  assistantId: number;
  assistantUuid: string;
  userId: number;
  name: string;
  systemPrompt: string;
  initialMessage: string;
  variables: Record<string, unknown>;
  /** The provider's model name from the models catalog; undefined when the assistant names none. */
  modelName: string | undefined;
  temperature: number;
  timezone: string;
  knowledgebaseId: number | null;
  knowledgebaseMode: 'function_call' | 'prompt';
  endCallDescription: string | undefined;
  httpTools: HttpToolSpec[];
  /** The built-in tools that act on a call's line (collect_keypad, ...); offered on calls only. */
  lineTools: LineToolSpec[];
}
