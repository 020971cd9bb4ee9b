import type { Knex } from 'knex';
import type { LineToolSpec } from '../../agent/line-tools.ts';
import type { AgentProfile } from '../../agent/profile.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import type { Tool } from '../tools/model.ts';
import { WARM_TRANSFER_DEFAULTS } from './builtin-tools.ts';
import { openHeaders } from '../tools/service.ts';

/** The profile as the database hands it over: one JSON value, keys as named below. */
export interface StoredProfile {
  id: number;
  uuid: string;
  userId: number;
  name: string;
  systemPrompt: string;
  initialMessage: string;
  variables: Record<string, unknown> | null;
  temperature: number;
  timezone: string;
  knowledgebaseId: number | null;
  knowledgebaseMode: string | null;
  builtInTools: StoredTool[] | null;
  /** The names of the assistants its `assistant_transfer` tools hand over to, by id; those gone are missing. */
  assistantNames: Record<string, string> | null;
  modelName: string | null;
  httpTools: Pick<Tool, 'name' | 'description' | 'endpoint' | 'method' | 'timeout' | 'headers' | 'schema'>[];
}

/**
 * The query for an assistant's profile, with its mid-call tools, as one JSON value named `profile`. It stands
 * alone or as a subquery of a caller's statement: the id or uuid may be a column or subquery of that statement.
 */
export function agentProfileQuery(knex: Knex, where: { uuid: string | Knex.Raw } | { id: number | Knex.Raw }): Knex.QueryBuilder {
  return knex('assistants as a')
    .leftJoin('language_models as m', 'm.id', 'a.llm_model_id')
    .where('uuid' in where ? { 'a.uuid': where.uuid } : { 'a.id': where.id })
    .select(knex.raw(`json_build_object(
      'id', a.id, 'uuid', a.uuid, 'userId', a.user_id, 'name', a.name, 'systemPrompt', a.system_prompt,
      'initialMessage', a.initial_message, 'variables', a.variables, 'temperature', a.llm_temperature,
      'timezone', a.timezone, 'knowledgebaseId', a.knowledgebase_id, 'knowledgebaseMode', a.knowledgebase_mode,
      'builtInTools', a.tools, 'modelName', m.provider_model,
      'assistantNames', (
        select json_object_agg(b.id, b.name) from assistants b
        where b.user_id = a.user_id and b.id <> a.id and b.id in (
          select (t->'data'->>'assistant_id')::bigint from jsonb_array_elements(a.tools) t where t->>'type' = 'assistant_transfer')),
      'httpTools', (
        select coalesce(json_agg(json_build_object(
          'name', t.name, 'description', t.description, 'endpoint', t.endpoint, 'method', t.method,
          'timeout', t.timeout, 'headers', t.headers, 'schema', t.schema) order by t.id), '[]')
        from tools t join assistant_tools at on at.tool_id = t.id
        where at.assistant_id = a.id)
    ) as profile`));
}

/** A built-in tool as the assistant stores it (builtin-tools.ts): its type and its fields. */
interface StoredTool {
  type: string;
  data?: Record<string, unknown> | null;
}

const text = (value: unknown) => (typeof value === 'string' ? value : undefined);

/**
 * The built-in tools that act on a call's line, with the contract's defaults for the fields left out; a
 * transfer to an assistant that is gone (no name in `assistantNames`) is left out.
 */
export function lineToolSpecs(tools: readonly StoredTool[], assistantNames: Record<string, string> = {}): LineToolSpec[] {
  return tools.flatMap((tool): LineToolSpec[] => {
    const data = tool.data ?? {};
    switch (tool.type) {
      case 'collect_keypad':
        return [{ type: 'collect_keypad', timeoutSeconds: typeof data.timeout === 'number' ? data.timeout : 5, stopKey: data.stop_key === '*' ? '*' : '#' }];
      case 'dtmf_input':
        return [{ type: 'dtmf_input', description: text(data.description) }];
      case 'call_transfer':
        if (typeof data.phone_number !== 'string') return [];
        return [{
          type: 'call_transfer', phoneNumber: data.phone_number, custom: data.custom === true, description: text(data.description),
          warmTransfer: data.warm_transfer === true, warmTransferMessage: text(data.warm_transfer_message),
        }];
      case 'warm_call_transfer': {
        if (typeof data.supervisor_phone !== 'string' || typeof data.outbound_phone_id !== 'number') return [];
        const defaults = WARM_TRANSFER_DEFAULTS;
        const mode = data.caller_id_mode === 'customer_number' || data.caller_id_mode === 'custom' ? data.caller_id_mode : 'outbound_number';
        return [{
          type: 'warm_call_transfer',
          description: text(data.description) ?? '',
          supervisorPhone: data.supervisor_phone,
          outboundPhoneId: data.outbound_phone_id,
          callerIdMode: mode,
          customCallerId: text(data.custom_caller_id),
          holdMusicVolume: data.hold_music === 'none' ? undefined : typeof data.hold_music_volume === 'number' ? data.hold_music_volume : defaults.hold_music_volume,
          holdMessage: text(data.hold_message) ?? defaults.hold_message,
          summaryInstructions: text(data.summary_instructions) ?? defaults.summary_instructions,
          briefingInitialMessage: text(data.briefing_initial_message) ?? defaults.briefing_initial_message,
          connectedMessage: text(data.connected_message) ?? defaults.connected_message,
        }];
      }
      case 'assistant_transfer': {
        const name = assistantNames[String(data.assistant_id)];
        if (typeof data.assistant_id !== 'number' || name === undefined) return [];
        return [{
          type: 'assistant_transfer', assistantId: data.assistant_id, assistantName: name, description: text(data.description),
          messageBeforeTransfer: text(data.message_before_transfer), speakTransferGreeting: data.speak_transfer_greeting !== false,
        }];
      }
      default:
        return [];
    }
  });
}

/** The profile from what `agentProfileQuery` returned, with the tools' headers decrypted. */
export function toAgentProfile(secrets: SecretBox, stored: StoredProfile): AgentProfile {
  const builtIn = stored.builtInTools ?? [];
  const endCall = builtIn.find((tool) => tool.type === 'end_call');
  return {
    assistantId: stored.id,
    assistantUuid: stored.uuid,
    userId: stored.userId,
    name: stored.name,
    systemPrompt: stored.systemPrompt,
    initialMessage: stored.initialMessage,
    variables: stored.variables ?? {},
    modelName: stored.modelName ?? undefined,
    temperature: stored.temperature,
    timezone: stored.timezone,
    knowledgebaseId: stored.knowledgebaseId,
    knowledgebaseMode: stored.knowledgebaseMode === 'prompt' ? 'prompt' : 'function_call',
    endCallDescription: typeof endCall?.data?.description === 'string' ? endCall.data.description : undefined,
    httpTools: stored.httpTools.map((tool) => ({
      name: tool.name,
      description: tool.description,
      endpoint: tool.endpoint,
      method: tool.method,
      timeoutSeconds: tool.timeout,
      headers: openHeaders(secrets, tool),
      parameters: tool.schema,
    })),
    lineTools: lineToolSpecs(builtIn, stored.assistantNames ?? {}),
  };
}

/** Loads an assistant by its public UUID or its id, with its mid-call tools' headers decrypted, in one query. */
export async function loadAgentProfile(
  deps: { knex: Knex; secrets: SecretBox },
  where: { uuid: string } | { id: number },
): Promise<AgentProfile | undefined> {
  const row = await agentProfileQuery(deps.knex, where).first<{ profile: StoredProfile } | undefined>();
  return row ? toAgentProfile(deps.secrets, row.profile) : undefined;
}
