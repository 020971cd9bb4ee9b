import type { Knex } from 'knex';
import type { SecretBox } from '../lib/secrets.ts';
import type { Tool } from '../resources/tools/model.ts';
import { openHeaders } from '../resources/tools/service.ts';
import type { HttpToolSpec } from './tools.ts';

/** What the dialogue core needs to know about an assistant, for a chat or a call alike. */
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
}

interface AssistantRow {
  id: number;
  uuid: string;
  userId: number;
  name: string;
  systemPrompt: string;
  initialMessage: string;
  variables: Record<string, unknown> | null;
  llmTemperature: number;
  timezone: string;
  knowledgebaseId: number | null;
  knowledgebaseMode: string | null;
  tools: { type: string; data?: { description?: string } | null }[] | null;
  providerModel: string | null;
}

/** Loads an assistant by its public UUID or its id, with its mid-call tools' headers decrypted. */
export async function loadAgentProfile(
  deps: { knex: Knex; secrets: SecretBox },
  where: { uuid: string } | { id: number },
): Promise<AgentProfile | undefined> {
  const row = await deps.knex('assistants as a')
    .leftJoin('language_models as m', 'm.id', 'a.llm_model_id')
    .where('uuid' in where ? { 'a.uuid': where.uuid } : { 'a.id': where.id })
    .first<AssistantRow | undefined>(
      'a.id', 'a.uuid', 'a.user_id', 'a.name', 'a.system_prompt', 'a.initial_message', 'a.variables', 'a.llm_temperature',
      'a.timezone', 'a.knowledgebase_id', 'a.knowledgebase_mode', 'a.tools', 'm.provider_model',
    );
  if (!row) return undefined;
  const tools = await deps.knex('tools as t')
    .join('assistant_tools as at', 'at.tool_id', 't.id')
    .where('at.assistant_id', row.id)
    .orderBy('t.id')
    .select<Tool[]>('t.*');
  const endCall = (row.tools ?? []).find((tool) => tool.type === 'end_call');
  return {
    assistantId: row.id,
    assistantUuid: row.uuid,
    userId: row.userId,
    name: row.name,
    systemPrompt: row.systemPrompt,
    initialMessage: row.initialMessage,
    variables: row.variables ?? {},
    modelName: row.providerModel ?? undefined,
    temperature: row.llmTemperature,
    timezone: row.timezone,
    knowledgebaseId: row.knowledgebaseId,
    knowledgebaseMode: row.knowledgebaseMode === 'prompt' ? 'prompt' : 'function_call',
    endCallDescription: endCall?.data?.description,
    httpTools: tools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      endpoint: tool.endpoint,
      method: tool.method,
      timeoutSeconds: tool.timeout,
      headers: openHeaders(deps.secrets, tool),
      parameters: tool.schema,
    })),
  };
}
