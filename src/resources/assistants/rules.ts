import type { Knex } from 'knex';
import { attributeName } from '../../api/validation.ts';
import { ValidationError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { isTimeZone } from '../../lib/time.ts';
import { Language, LanguageModel, SynthesizerProvider, Voice, type ModelType } from '../catalogs/model.ts';
import { defaultTranscriber, languageServices, listTranscriberProviders, type OfferedSpeech } from '../catalogs/service.ts';
import { PhoneNumber } from '../phone-numbers/model.ts';
import { Tool } from '../tools/model.ts';
import { SECRET_FIELDS, type BuiltinToolType, type StoredBuiltinTool } from './builtin-tools.ts';
import { Assistant, DEFAULT_SETTINGS, type AssistantSettings } from './model.ts';
import { fieldNames, type AssistantRequest } from './normalize.ts';

export interface RuleDeps {
  knex: Knex;
  secrets: SecretBox;
  /** What this deployment hears and speaks: a pipeline assistant in a language it cannot serve is refused. */
  offered?: OfferedSpeech | undefined;
}

export const secretPurpose = (type: BuiltinToolType, field: string) => `assistant.tools.${type}.${field}`;

class Errors {
  readonly byField: Record<string, string[]> = {};
  add(field: string, message: string): void {
    (this.byField[field] ??= []).push(message);
  }
  invalid(field: string): void {
    this.add(field, `The selected ${attributeName(field)} is invalid.`);
  }
  throwIfAny(): void {
    if (Object.keys(this.byField).length > 0) throw new ValidationError(this.byField);
  }
}

async function modelOfType(knex: Knex, id: number, type: ModelType): Promise<LanguageModel | undefined> {
  return LanguageModel.query(knex).findOne({ id, type });
}

async function modelByName(knex: Knex, name: string, type: ModelType): Promise<LanguageModel | undefined> {
  return LanguageModel.query(knex)
    .where({ type })
    .where((scope) => scope.whereRaw('lower(name) = lower(?)', [name]).orWhereRaw('lower(code) = lower(?)', [name]).orWhereRaw('lower(provider_model) = lower(?)', [name]))
    .orderBy('id')
    .first();
}

async function firstModel(knex: Knex, type: ModelType): Promise<LanguageModel | undefined> {
  return LanguageModel.query(knex).where({ type }).orderBy('id').first();
}

export interface ResolvedAssistant {
  settings: AssistantSettings;
  toolIds: number[] | undefined;
  labelIds: number[] | undefined;
}

/**
 * Applies a request to an assistant (a new one when `existing` is undefined): resolves names and
 * references against the catalogs and the caller's records, applies the rules that span fields and the
 * documented defaults, and throws every broken rule at once as a 422.
 */
export async function resolveAssistant(
  deps: RuleDeps,
  userId: number,
  request: AssistantRequest,
  existing?: Assistant,
): Promise<ResolvedAssistant> {
  const { knex } = deps;
  const names = fieldNames(request.spelling);
  const errors = new Errors();
  const changes = request.changes;
  const changed = (key: keyof AssistantSettings) => !existing || changes[key] !== undefined;
  const base = existing ? pick(existing) : { ...DEFAULT_SETTINGS, voiceId: null, languageId: null, llmModelId: null, multimodalModelId: null };
  const settings = { ...base, ...changes } as AssistantSettings;
  const modeChanged = existing !== undefined && changes.mode !== undefined && changes.mode !== existing.mode;

  if (changes.timezone !== undefined && !isTimeZone(changes.timezone)) errors.add('timezone', 'The timezone field must be a valid timezone.');

  // Language: by id, or by name in the legacy spelling.
  let language: Language | undefined;
  if (request.languageName !== undefined) {
    language = await Language.query(knex)
      .whereRaw('lower(name) = lower(?) or lower(iso2) = lower(?)', [request.languageName, request.languageName])
      .first();
    if (language) settings.languageId = language.id;
    else errors.invalid(names.language);
  } else if (settings.languageId !== null && changed('languageId')) {
    language = await Language.query(knex).findById(settings.languageId);
    if (!language) errors.invalid(names.language);
  }
  const languageChanged = !existing || (language !== undefined && language.id !== existing.languageId);

  // Models: the pipeline speaks through a chat model, multimodal through a speech-to-speech model.
  const modelType: ModelType = settings.mode === 'pipeline' ? 'llm' : 'multimodal';
  const modelKey = modelType === 'llm' ? 'llmModelId' : 'multimodalModelId';
  const modelField = modelType === 'llm' ? names.llmModel : names.multimodalModel;
  const modelId = settings[modelKey] as number | null | undefined;
  if (request.llmModelName !== undefined) {
    const model = await modelByName(knex, request.llmModelName, modelType);
    if (model) settings[modelKey] = model.id;
    else errors.invalid(modelField);
  } else if (modelId === null || modelId === undefined || (modeChanged && changes[modelKey] === undefined)) {
    // A mode change resets the models to the new mode's default; a new assistant must name one.
    const fallback = modeChanged ? await firstModel(knex, modelType) : undefined;
    if (fallback) settings[modelKey] = fallback.id;
    else errors.add(modelField, `The ${attributeName(modelField)} field is required when ${attributeName(names.mode)} is ${settings.mode}.`);
  } else if ((changed(modelKey) || modeChanged) && !(await modelOfType(knex, modelId, modelType))) {
    errors.invalid(modelField);
  }
  if (modelType === 'llm') {
    settings.multimodalModelId = null;
    settings.chatLlmFallbackId = null;
  } else {
    settings.llmModelId = null;
    if (settings.chatLlmFallbackId !== null && changed('chatLlmFallbackId') && !(await modelOfType(knex, settings.chatLlmFallbackId, 'llm'))) {
      errors.invalid('chat_llm_fallback_id');
    }
  }

  // Voice: the caller's own or a public one, of the assistant's mode; a pipeline voice fixes the TTS provider.
  let voice: Voice | undefined;
  if (changed('voiceId') || modeChanged || changes.synthesizerProviderId !== undefined) {
    voice = settings.voiceId === null ? undefined : await Voice.query(knex)
      .findById(settings.voiceId)
      .where((scope) => scope.whereNull('userId').orWhere({ userId }));
    if (!voice) errors.invalid('voice_id');
    else if (voice.mode !== settings.mode) errors.add('voice_id', 'The selected voice is not compatible with the chosen engine type.');
    else if (settings.mode === 'pipeline') {
      const asked = changes.synthesizerProviderId;
      if (asked !== undefined && asked !== null && asked !== voice.synthesizerProviderId) {
        const exists = await SynthesizerProvider.query(knex).findById(asked);
        errors.add('synthesizer_provider_id', exists
          ? 'The selected synthesizer provider id does not offer the selected voice.'
          : 'The selected synthesizer provider id is invalid.');
      }
      settings.synthesizerProviderId = voice.synthesizerProviderId;
    }
  }

  if (settings.mode === 'pipeline') await checkSpokenLanguage(deps, settings, { language, voice, languageChanged: languageChanged || modeChanged, names }, errors);

  // Speech-to-text: pipeline only; picked by language unless the request names one that speaks it.
  if (settings.mode === 'multimodal') {
    settings.synthesizerProviderId = null;
    settings.transcriberProviderId = null;
  } else if (settings.languageId !== null) {
    const asked = changes.transcriberProviderId;
    if (asked !== undefined && asked !== null) {
      const speaking = await listTranscriberProviders(knex, settings.languageId).catch(() => []);
      if (!speaking.some((provider) => provider.id === asked)) errors.invalid('transcriber_provider_id');
    } else if (asked === null || languageChanged || modeChanged || settings.transcriberProviderId === null) {
      const lang = language ?? await Language.query(knex).findById(settings.languageId);
      settings.transcriberProviderId = lang ? (await defaultTranscriber(knex, lang))?.id ?? null : null;
    }
  }

  // Mode-specific settings of a speech-to-speech model.
  if (settings.mode === 'multimodal') {
    if (changes.allowInterruptions === false) errors.add('allow_interruptions', 'Interruptions cannot be disabled in multimodal mode.');
    settings.allowInterruptions = true;
    if (changes.fillers === true) errors.add(names.fillers, 'Fillers are only available in pipeline mode.');
    settings.fillers = false;
    if (changes.knowledgebaseMode === 'prompt') errors.add('knowledgebase_mode', 'Only function_call mode is available for multimodal assistants.');
    settings.knowledgebaseMode = 'function_call';
  } else if (settings.knowledgebaseMode === null || (modeChanged && changes.knowledgebaseMode === undefined)) {
    settings.knowledgebaseMode = 'prompt';
  }

  if (changed('phoneNumberId') || changed('type')) await checkPhoneNumber(knex, userId, settings, existing?.id, errors);

  if (settings.knowledgebaseId !== null && changed('knowledgebaseId')) {
    const own = await knex('knowledgebases').where({ id: settings.knowledgebaseId, userId }).first('id') as unknown;
    if (!own) errors.invalid('knowledgebase_id');
  }

  if (changes.secondaryLanguageIds && changes.secondaryLanguageIds.length > 0) {
    const ids = [...new Set(changes.secondaryLanguageIds)];
    const found = new Set((await Language.query(knex).whereIn('id', ids)).map((row) => row.id));
    changes.secondaryLanguageIds.forEach((id, index) => {
      if (!found.has(id)) errors.invalid(`secondary_language_ids.${index}`);
    });
    settings.secondaryLanguageIds = ids;
  }

  if (request.useMinInterruptWords === false) settings.minInterruptWords = null;
  else if (request.useMinInterruptWords === true && settings.minInterruptWords === null) {
    errors.add('min_interrupt_words', 'The min interrupt words field is required when use min interrupt words is true.');
  }

  if (settings.isWebhookActive && !settings.webhookUrl) {
    errors.add('webhook_url', 'The webhook url field is required when is webhook active is true.');
  }

  if (request.toolIds && request.toolIds.length > 0) {
    const found = new Set((await Tool.query(knex).where({ userId }).whereIn('id', request.toolIds)).map((tool) => tool.id));
    request.toolIds.forEach((id, index) => {
      if (!found.has(id)) errors.invalid(`tool_ids.${index}`);
    });
  }

  await checkOrganization(knex, userId, settings.folderId, changed('folderId'), request.labelIds, errors);

  if (request.builtinTools) settings.tools = await builtinTools(deps, userId, request.builtinTools, existing?.id, errors);
  if (request.endCallDescription !== undefined) {
    settings.tools = [...settings.tools.filter((tool) => tool.type !== 'end_call'), { type: 'end_call', data: { description: request.endCallDescription } }];
  }

  errors.throwIfAny();
  return { settings, toolIds: request.toolIds, labelIds: request.labelIds && [...new Set(request.labelIds)] };
}

/**
 * A pipeline assistant speaks its language in its voice: a voice of another language is refused, naming both
 * (multilingual voices have none); and a language this deployment cannot hold calls in is refused with the
 * reason when it is chosen, rather than found out in a call.
 */
async function checkSpokenLanguage(
  deps: RuleDeps,
  settings: AssistantSettings,
  given: { language: Language | undefined; voice: Voice | undefined; languageChanged: boolean; names: ReturnType<typeof fieldNames> },
  errors: Errors,
): Promise<void> {
  const { knex } = deps;
  if (settings.languageId === null || (!given.languageChanged && given.voice === undefined)) return;
  const language = given.language ?? await Language.query(knex).findById(settings.languageId);
  if (!language) return;
  const voice = given.voice ?? (settings.voiceId === null ? undefined : await Voice.query(knex).findById(settings.voiceId));
  if (voice && voice.languageId !== null && voice.languageId !== language.id) {
    const spoken = await Language.query(knex).findById(voice.languageId);
    errors.add('voice_id', `The selected voice ${voice.name} speaks ${spoken?.name ?? 'another language'}, not ${language.name}: choose a voice of ${language.name} or a multilingual one.`);
  }
  if (deps.offered && given.languageChanged) {
    const service = (await languageServices(knex, [language], deps.offered)).get(language.id);
    if (service?.reason) errors.add(given.names.language, service.reason);
  }
}

/**
 * The folder and labels must be the caller's own. They are locked until the transaction ends, so one deleted in
 * the meantime cannot leave the assistant pointing at it.
 */
async function checkOrganization(knex: Knex, userId: number, folderId: number | null, folderChanged: boolean, labelIds: number[] | undefined, errors: Errors): Promise<void> {
  if (folderId !== null && folderChanged) {
    const own = await knex('folders').where({ id: folderId, userId }).forShare().first('id') as unknown;
    if (!own) errors.invalid('folder_id');
  }
  if (labelIds && labelIds.length > 0) {
    const rows = await knex('labels').where({ userId }).whereIn('id', labelIds).forShare().select<{ id: number }[]>('id');
    const found = new Set(rows.map((row) => row.id));
    labelIds.forEach((id, index) => {
      if (!found.has(id)) errors.invalid(`label_ids.${index}`);
    });
  }
}

async function checkPhoneNumber(knex: Knex, userId: number, settings: AssistantSettings, selfId: number | undefined, errors: Errors): Promise<void> {
  if (settings.phoneNumberId === null) return;
  const number = await PhoneNumber.query(knex).modify('held').findOne({ id: settings.phoneNumberId, userId });
  if (!number) return errors.invalid('phone_number_id');
  if (settings.type !== 'inbound') return;
  if (number.type === 'caller_id') {
    return errors.add('phone_number_id', 'A caller ID number cannot receive calls, so it cannot be assigned to an inbound assistant.');
  }
  const taken = Assistant.query(knex).where({ phoneNumberId: number.id, type: 'inbound' });
  if (selfId !== undefined) taken.whereNot({ id: selfId });
  if (await taken.first()) errors.add('phone_number_id', PHONE_NUMBER_TAKEN);
}

export const PHONE_NUMBER_TAKEN = 'The phone number is already assigned to another inbound assistant.';

/** Checks the references of built-in tools and stores them nested, their secret fields encrypted. */
async function builtinTools(
  deps: RuleDeps,
  userId: number,
  items: ({ type: string } & Record<string, unknown>)[],
  selfId: number | undefined,
  errors: Errors,
): Promise<StoredBuiltinTool[]> {
  const stored: StoredBuiltinTool[] = [];
  for (const [index, item] of items.entries()) {
    const { type, ...data } = item as { type: BuiltinToolType } & Record<string, unknown>;
    const at = (field: string) => `tools.${index}.${field}`;
    if (type === 'call_transfer' && typeof data.timezone === 'string' && !isTimeZone(data.timezone)) {
      errors.add(at('timezone'), `The ${attributeName(at('timezone'))} field must be a valid timezone.`);
    }
    if (type === 'warm_call_transfer') {
      if (!(await PhoneNumber.query(deps.knex).findOne({ id: data.outbound_phone_id as number, userId }))) errors.invalid(at('outbound_phone_id'));
      const sipAddress = /^sips?:/i.test(String(data.supervisor_phone));
      if (data.custom_sip === true && !sipAddress) {
        errors.add(at('supervisor_phone'), `The ${attributeName(at('supervisor_phone'))} field must be a SIP URI when custom sip is true.`);
      } else if (data.custom_sip !== true && sipAddress) {
        errors.add(at('supervisor_phone'), `The ${attributeName(at('supervisor_phone'))} field must be a phone number in E.164 format.`);
      }
      if (data.caller_id_mode === 'custom' && !data.custom_caller_id) {
        errors.add(at('custom_caller_id'), `The ${attributeName(at('custom_caller_id'))} field is required when caller id mode is custom.`);
      }
    }
    if (type === 'calendar_integration' && data.calcom_endpoint === 'custom' && !data.calcom_custom_endpoint) {
      errors.add(at('calcom_custom_endpoint'), `The ${attributeName(at('calcom_custom_endpoint'))} field is required when calcom endpoint is custom.`);
    }
    if (type === 'assistant_transfer') {
      const target = data.assistant_id as number;
      if (target === selfId || !(await Assistant.query(deps.knex).findOne({ id: target, userId }))) errors.invalid(at('assistant_id'));
    }
    for (const field of SECRET_FIELDS[type] ?? []) {
      if (typeof data[field] === 'string') data[field] = deps.secrets.encrypt(data[field], secretPurpose(type, field));
    }
    stored.push({ type, data });
  }
  return stored;
}

/** An assistant's settings without its identity and timestamps. */
export function pick(assistant: Assistant): AssistantSettings {
  const { id: _id, uuid: _uuid, userId: _userId, createdAt: _createdAt, updatedAt: _updatedAt, ...settings } = assistant.toJSON() as unknown as Assistant;
  return settings;
}
