import type { AssistantSettings } from './model.ts';
import { isLegacyBody, type CurrentBody, type LegacyBody } from './schemas.ts';

/** What a request asks to change, in the internal spelling, with the references still to resolve. */
export interface AssistantRequest {
  spelling: 'current' | 'legacy';
  changes: Partial<AssistantSettings>;
  /** Legacy: the language and model by name, resolved against the catalogs. */
  languageName?: string;
  llmModelName?: string;
  /** Built-in tools as sent (flat); replaces the stored list. */
  builtinTools?: ({ type: string } & Record<string, unknown>)[];
  toolIds?: number[];
  /** Replaces the applied labels; as sent, so that an error names the position the client sent. */
  labelIds?: number[];
  /** Legacy `end_call_tool.description`: sets the end_call built-in tool. */
  endCallDescription?: string;
  /** Legacy `use_min_interrupt_words`. */
  useMinInterruptWords?: boolean;
}

const camel = (key: string) => key.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());

// Legacy field → current field, as the anchor's mapping suggests (§5.2).
const legacyRenames: Record<string, string> = {
  assistant_name: 'name',
  filler_audios: 'fillers',
  re_engagement_interval: 'reengagement_interval',
  max_call_duration: 'max_duration',
  noise_cancellation: 'enable_noise_cancellation',
  record_call: 'record',
};

// Handled one by one below rather than copied.
const special = new Set([
  'tools', 'tool_ids', 'label_ids', 'language', 'llm_model', 'calls_direction', 'engine_type', 'who_speaks_first', 'end_call_tool', 'use_min_interrupt_words',
]);

export function normalizeRequest(body: CurrentBody | LegacyBody): AssistantRequest {
  const raw = body as Record<string, unknown>;
  const legacy = isLegacyBody(raw);
  const request: AssistantRequest = { spelling: legacy ? 'legacy' : 'current', changes: {} };
  const changes = request.changes as Record<string, unknown>;
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined || special.has(key)) continue;
    changes[camel(legacy ? legacyRenames[key] ?? key : key)] = value;
  }
  if (Array.isArray(raw.tool_ids)) request.toolIds = [...new Set(raw.tool_ids as number[])];
  if (Array.isArray(raw.label_ids)) request.labelIds = raw.label_ids as number[];
  if (legacy) {
    // The legacy schema has validated these; the fields that need more than a rename.
    const old = raw as {
      language?: string;
      llm_model?: string;
      calls_direction?: 'receive' | 'make';
      engine_type?: 'pipeline' | 'multimodal';
      who_speaks_first?: 'AI assistant' | 'Customer';
      end_call_tool?: { description?: string };
      use_min_interrupt_words?: boolean;
    };
    if (old.language !== undefined) request.languageName = old.language;
    if (old.llm_model !== undefined) request.llmModelName = old.llm_model;
    if (old.calls_direction !== undefined) request.changes.type = old.calls_direction === 'receive' ? 'inbound' : 'outbound';
    if (old.engine_type !== undefined) request.changes.mode = old.engine_type;
    if (old.who_speaks_first !== undefined) request.changes.waitForCustomer = old.who_speaks_first === 'Customer';
    if (old.end_call_tool?.description !== undefined) request.endCallDescription = old.end_call_tool.description;
    if (old.use_min_interrupt_words !== undefined) request.useMinInterruptWords = old.use_min_interrupt_words;
  } else if (Array.isArray(raw.tools)) {
    request.builtinTools = raw.tools as AssistantRequest['builtinTools'];
  }
  return request;
}

/** The request's field names in its own spelling, for error messages. */
export function fieldNames(spelling: AssistantRequest['spelling']) {
  return spelling === 'legacy'
    ? { language: 'language', llmModel: 'llm_model', multimodalModel: 'llm_model', mode: 'engine_type', type: 'calls_direction', fillers: 'filler_audios' }
    : { language: 'language_id', llmModel: 'llm_model_id', multimodalModel: 'multimodal_model_id', mode: 'mode', type: 'type', fillers: 'fillers' };
}
