import { isUniqueViolation } from '../../db/errors.ts';
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { NotFoundError, ValidationError } from '../../lib/errors.ts';
import { pageWindow, type PageRequest } from '../../lib/pagination.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { Language } from '../catalogs/model.ts';
import type { OfferedSpeech } from '../catalogs/service.ts';
import { Assistant } from './model.ts';
import { normalizeRequest } from './normalize.ts';
import { PHONE_NUMBER_TAKEN, resolveAssistant } from './rules.ts';
import type { CurrentBody, LegacyBody } from './schemas.ts';
import type { AssistantExtras } from './serialize.ts';

export interface AssistantDeps {
  knex: Knex;
  secrets: SecretBox;
  /** What this deployment hears and speaks (the assistant rules refuse a language it cannot serve). */
  offered?: OfferedSpeech | undefined;
}

const NOT_FOUND = 'Assistant not found';

// The partial unique index lets only one inbound assistant hold a number, even when two requests race.
function isInboundNumberTaken(error: unknown): boolean {
  return isUniqueViolation(error, 'assistants_inbound_number_unique');
}

async function replaceTools(trx: Knex, assistantId: number, toolIds: number[] | undefined): Promise<void> {
  if (toolIds === undefined) return;
  await trx('assistant_tools').where({ assistantId }).delete();
  if (toolIds.length > 0) await trx('assistant_tools').insert(toolIds.map((toolId) => ({ assistantId, toolId })));
}

/** Labels sent replace the applied ones whole (anchor §5.3); left out, they stay. */
async function replaceLabels(trx: Knex, assistantId: number, labelIds: number[] | undefined): Promise<void> {
  if (labelIds === undefined) return;
  await trx('assistant_labels').where({ assistantId }).delete();
  if (labelIds.length > 0) await trx('assistant_labels').insert(labelIds.map((labelId) => ({ assistantId, labelId })));
}

export async function createAssistant(deps: AssistantDeps, userId: number, body: CurrentBody | LegacyBody): Promise<Assistant> {
  const request = normalizeRequest(body);
  try {
    return await deps.knex.transaction(async (trx) => {
      const { settings, toolIds, labelIds } = await resolveAssistant({ ...deps, knex: trx }, userId, request);
      const assistant = await Assistant.query(trx).insertAndFetch({ ...settings, uuid: randomUUID(), userId });
      await replaceTools(trx, assistant.id, toolIds);
      await replaceLabels(trx, assistant.id, labelIds);
      return assistant;
    });
  } catch (error) {
    if (isInboundNumberTaken(error)) throw ValidationError.of('phone_number_id', PHONE_NUMBER_TAKEN);
    throw error;
  }
}

async function findOwn(knex: Knex, userId: number, id: number): Promise<Assistant> {
  const assistant = await Assistant.query(knex).findOne({ id, userId });
  if (!assistant) throw new NotFoundError(NOT_FOUND);
  return assistant;
}

export async function updateAssistant(deps: AssistantDeps, userId: number, id: number, body: CurrentBody | LegacyBody): Promise<Assistant> {
  const request = normalizeRequest(body);
  try {
    return await deps.knex.transaction(async (trx) => {
      const existing = await Assistant.query(trx).findOne({ id, userId }).forUpdate();
      if (!existing) throw new NotFoundError(NOT_FOUND);
      const { settings, toolIds, labelIds } = await resolveAssistant({ ...deps, knex: trx }, userId, request, existing);
      const updated = await existing.$query(trx).patchAndFetch({ ...settings, updatedAt: new Date() });
      await replaceTools(trx, id, toolIds);
      await replaceLabels(trx, id, labelIds);
      return updated;
    });
  } catch (error) {
    if (isInboundNumberTaken(error)) throw ValidationError.of('phone_number_id', PHONE_NUMBER_TAKEN);
    throw error;
  }
}

export async function deleteAssistant(deps: AssistantDeps, userId: number, id: number): Promise<void> {
  const deleted = await Assistant.query(deps.knex).delete().where({ id, userId });
  if (deleted === 0) throw new NotFoundError(NOT_FOUND);
}

/** What the list item shows beyond the row: attached tool ids, applied label ids and the language's name. */
export async function assistantExtras(knex: Knex, assistants: Assistant[]): Promise<Map<number, AssistantExtras>> {
  const ids = assistants.map((assistant) => assistant.id);
  const links = ids.length === 0 ? [] : await knex('assistant_tools').whereIn('assistant_id', ids).orderBy('tool_id') as { assistantId: number; toolId: number }[];
  const labels = ids.length === 0 ? [] : await knex('assistant_labels').whereIn('assistant_id', ids).orderBy('label_id') as { assistantId: number; labelId: number }[];
  const languageIds = [...new Set(assistants.map((assistant) => assistant.languageId).filter((id) => id !== null))];
  const languages = languageIds.length === 0 ? [] : await Language.query(knex).whereIn('id', languageIds);
  const names = new Map(languages.map((language) => [language.id, language.name]));
  return new Map(assistants.map((assistant) => [assistant.id, {
    toolIds: links.filter((link) => link.assistantId === assistant.id).map((link) => link.toolId),
    labelIds: labels.filter((link) => link.assistantId === assistant.id).map((link) => link.labelId),
    languageName: assistant.languageId === null ? null : names.get(assistant.languageId) ?? null,
  }]));
}

export async function getAssistant(deps: AssistantDeps, userId: number, id: number): Promise<{ assistant: Assistant; extras: AssistantExtras }> {
  const assistant = await findOwn(deps.knex, userId, id);
  const extras = (await assistantExtras(deps.knex, [assistant])).get(assistant.id) as AssistantExtras;
  return { assistant, extras };
}

/** Narrows the assistant lists: to one folder, to those carrying one label. */
export interface AssistantFilter {
  folderId?: number | undefined;
  labelId?: number | undefined;
}

function filtered(knex: Knex, userId: number, filter: AssistantFilter) {
  const query = Assistant.query(knex).where({ userId });
  if (filter.folderId !== undefined) query.where({ folderId: filter.folderId });
  if (filter.labelId !== undefined) {
    const labelId = filter.labelId;
    query.whereExists((labelled) => labelled.from('assistant_labels').whereRaw('assistant_labels.assistant_id = assistants.id').where({ labelId }));
  }
  return query;
}

export async function listAssistants(deps: AssistantDeps, userId: number, page: PageRequest, filter: AssistantFilter = {}): Promise<{
  assistants: Assistant[];
  extras: Map<number, AssistantExtras>;
  total: number;
}> {
  const { offset, limit } = pageWindow(page);
  const [assistants, total] = await Promise.all([
    filtered(deps.knex, userId, filter).orderBy('id').offset(offset).limit(limit),
    filtered(deps.knex, userId, filter).resultSize(),
  ]);
  return { assistants, extras: await assistantExtras(deps.knex, assistants), total };
}

/** All of the caller's assistants in the paginated list's order, for integrations that fill a dropdown. */
export async function allAssistants(deps: AssistantDeps, userId: number, filter: AssistantFilter = {}): Promise<{ assistants: Assistant[]; extras: Map<number, AssistantExtras> }> {
  const assistants = await filtered(deps.knex, userId, filter).orderBy('id');
  return { assistants, extras: await assistantExtras(deps.knex, assistants) };
}

export async function outboundAssistants(deps: AssistantDeps, userId: number): Promise<Assistant[]> {
  return Assistant.query(deps.knex).where({ userId, type: 'outbound' }).orderBy('id');
}

/** An assistant's webhooks: after calls (`post-call`), before an inbound call is answered, after a widget conversation. */
export type AssistantWebhook = 'post-call' | 'inbound' | 'conversation-ended';

/**
 * Turns one of an assistant's webhooks on at `url`, or off with null (its URL cleared). Deliveries still to
 * come read this at each attempt, so turning a webhook off stops them at once.
 */
export async function setWebhook(deps: AssistantDeps, userId: number, id: number, url: string | null, webhook: AssistantWebhook = 'post-call'): Promise<void> {
  const patch = webhook === 'post-call'
    ? { isWebhookActive: url !== null, webhookUrl: url }
    : webhook === 'inbound' ? { inboundWebhookUrl: url } : { conversationEndedWebhookUrl: url };
  const changed = await Assistant.query(deps.knex)
    .patch({ ...patch, updatedAt: new Date() })
    .where({ id, userId });
  if (changed === 0) throw new NotFoundError(NOT_FOUND);
}
