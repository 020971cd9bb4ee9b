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
  /** The mid-call tools, aggregated by the same query. */
  httpTools: Pick<Tool, 'name' | 'description' | 'endpoint' | 'method' | 'timeout' | 'headers' | 'schema'>[];
}

/**
 * Loads an assistant by its public UUID or its id, with its mid-call tools' headers decrypted, in one query.
 * The id may be a subquery, so a caller holding a conversation's UUID loads its assistant in the same trip.
 */
export async function loadAgentProfile(
  deps: { knex: Knex; secrets: SecretBox },
  where: { uuid: string } | { id: number | Knex.QueryBuilder },
): Promise<AgentProfile | undefined> {
  const tools = deps.knex('tools as t')
    .join('assistant_tools as at', 'at.tool_id', 't.id')
    .whereRaw('at.assistant_id = a.id')
    .select(deps.knex.raw(`coalesce(json_agg(json_build_object(
      'name', t.name, 'description', t.description, 'endpoint', t.endpoint, 'method', t.method,
      'timeout', t.timeout, 'headers', t.headers, 'schema', t.schema) order by t.id), '[]')`));
  const row = await deps.knex('assistants as a')
    .leftJoin('language_models as m', 'm.id', 'a.llm_model_id')
    .where('uuid' in where ? { 'a.uuid': where.uuid } : { 'a.id': where.id })
    .first<AssistantRow | undefined>(
      'a.id', 'a.uuid', 'a.user_id', 'a.name', 'a.system_prompt', 'a.initial_message', 'a.variables', 'a.llm_temperature',
      'a.timezone', 'a.knowledgebase_id', 'a.knowledgebase_mode', 'a.tools', 'm.provider_model', tools.as('http_tools'),
    );
  if (!row) return undefined;
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
    httpTools: row.httpTools.map((tool) => ({
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
