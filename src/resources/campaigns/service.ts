import type { Knex } from 'knex';
import { planOf } from '../../billing/plans.ts';
import { callingWindowOf, minutesOfDay, nextWindowOpening, type Weekday } from '../../campaigns/window.ts';
import { ForbiddenError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import { isTimeZone } from '../../lib/time.ts';
import { attributeName } from '../../api/validation.ts';
import type { PostCallField } from '../assistants/model.ts';
import { PhoneNumber } from '../phone-numbers/model.ts';
import { User } from '../users/model.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { signalCampaign } from '../../temporal/starters.ts';
import { Campaign } from './model.ts';
import { assignPhoneNumbers, leadCounts, liveCallCount, phoneNumberIdsOf } from './queries.ts';
import type { CreateCampaignBody, UpdateCampaignBody } from './schemas.ts';

export const campaignTexts = {
  notFound: 'Campaign not found',
  assistantNotFound: 'Assistant not found or not an outbound assistant.',
  planLimit: 'You have reached the maximum number of campaigns allowed by your plan.',
};

export interface CampaignView {
  campaign: Campaign;
  phoneNumberIds: number[];
}

export interface CampaignProgress {
  leads: number;
  leadsByStatus: Record<string, number>;
  callsInProgress: number;
  nextWindowOpensAt: Date | null;
}

const DEFAULT_PARALLEL_CALLS = 3;
/** Monday first, as people read a week; the window's own list starts on Sunday. */
const WEEK: readonly Weekday[] = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

interface CallingAssistant {
  id: number;
  postCallSchema: PostCallField[] | null;
}

/** The user's outbound assistant, or the documented 404. */
async function outboundAssistant(knex: Knex, userId: number, id: number): Promise<CallingAssistant> {
  const assistant = await knex('assistants').where({ id, userId, type: 'outbound' }).first<CallingAssistant | undefined>('id', 'post_call_schema');
  if (!assistant) throw new NotFoundError(campaignTexts.assistantNotFound);
  return assistant;
}

/** `HH:MM` or `HH:MM:SS` as `HH:MM:SS` (the schema has checked the form; minutesOfDay is the window's own reading). */
function timeOfDay(field: string, written: string): string {
  try {
    minutesOfDay(written);
  } catch {
    throw ValidationError.of(field, `The ${attributeName(field)} field must match the format H:i.`);
  }
  return written.length === 5 ? `${written}:00` : written;
}

function checkTimeZone(zone: string): string {
  if (!isTimeZone(zone)) throw ValidationError.of('timezone', 'The timezone field must be a valid timezone.');
  return zone;
}

/** The goal variable must be a `bool` field the assistant's post-call evaluation fills. */
function checkGoalVariable(assistant: CallingAssistant, variable: string | null): string | null {
  if (variable === null || variable === '') return null;
  const field = (assistant.postCallSchema ?? []).find((entry) => entry.name === variable);
  if (field?.type !== 'bool') {
    throw ValidationError.of('goal_completion_variable', "The goal completion variable must name a bool field of the assistant's post_call_schema.");
  }
  return variable;
}

/** At most the plan's concurrent calls (unlimited plans have no cap). */
function checkParallelCalls(limit: number | null, value: number): number {
  if (limit !== null && value > limit) {
    throw ValidationError.of('max_calls_in_parallel', `The max calls in parallel field must not be greater than ${limit}.`);
  }
  return value;
}

function weekdays(days: readonly Weekday[]): Weekday[] {
  return WEEK.filter((day) => days.includes(day));
}

/** Distinct numbers of the user's own, held now; errors name each offending item. */
async function checkPhoneNumbers(knex: Knex, userId: number, ids: number[]): Promise<number[]> {
  const errors: Record<string, string[]> = {};
  const owned = new Set((await PhoneNumber.query(knex).modify('held').where({ userId }).whereIn('id', ids).select('id')).map((number) => Number(number.id)));
  ids.forEach((id, index) => {
    const field = `phone_number_ids.${index}`;
    if (ids.indexOf(id) !== index) errors[field] = [`The ${attributeName(field)} field has a duplicate value.`];
    else if (!owned.has(id)) errors[field] = [`The selected ${attributeName(field)} is invalid.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return ids;
}

async function view(knex: Knex, campaign: Campaign): Promise<CampaignView> {
  return { campaign, phoneNumberIds: (await phoneNumberIdsOf(knex, [campaign.id])).get(campaign.id) ?? [] };
}

/**
 * Creates a `draft` campaign with the defaults of anchor §7.1: the account's time zone, 3 calls at once (at
 * most the plan's limit), all day every day, 3 retries an hour apart.
 */
export async function createCampaign(knex: Knex, userId: number, input: CreateCampaignBody): Promise<CampaignView> {
  const start = timeOfDay('allowed_hours_start_time', input.allowed_hours_start_time ?? '00:00');
  const end = timeOfDay('allowed_hours_end_time', input.allowed_hours_end_time ?? '23:59');
  return knex.transaction(async (trx) => {
    // Locking the user serialises this user's creates, so two at once cannot both pass the plan limit.
    const user = await User.query(trx).findById(userId).forUpdate().throwIfNotFound();
    const plan = await planOf(trx, user.planId);
    const count = await Campaign.query(trx).where({ userId }).resultSize();
    if (plan.campaigns !== null && count >= plan.campaigns) throw new ForbiddenError(campaignTexts.planLimit);
    const assistant = await outboundAssistant(trx, userId, input.assistant_id);
    const limit = plan.maxCallsInParallel;
    const campaign = await Campaign.query(trx).insertAndFetch({
      userId,
      assistantId: assistant.id,
      name: input.name,
      status: 'draft',
      timezone: checkTimeZone(input.timezone ?? user.timezone),
      maxCallsInParallel: checkParallelCalls(limit, input.max_calls_in_parallel ?? Math.min(DEFAULT_PARALLEL_CALLS, limit ?? DEFAULT_PARALLEL_CALLS)),
      allowedHoursStartTime: start,
      allowedHoursEndTime: end,
      allowedDays: weekdays(input.allowed_days as Weekday[] | undefined ?? WEEK),
      maxRetries: input.max_retries ?? 3,
      retryInterval: input.retry_interval ?? 60,
      retryOnVoicemail: input.retry_on_voicemail ?? false,
      retryOnGoalIncomplete: input.retry_on_goal_incomplete ?? false,
      goalCompletionVariable: checkGoalVariable(assistant, input.goal_completion_variable ?? null),
      markCompleteWhenNoLeads: input.mark_complete_when_no_leads ?? true,
    });
    await assignPhoneNumbers(trx, campaign.id, await checkPhoneNumbers(trx, userId, input.phone_number_ids ?? []));
    return view(trx, campaign);
  });
}

export async function listCampaigns(knex: Knex, userId: number): Promise<CampaignView[]> {
  const campaigns = await Campaign.query(knex).where({ userId }).orderBy('id');
  const numbers = await phoneNumberIdsOf(knex, campaigns.map((campaign) => campaign.id));
  return campaigns.map((campaign) => ({ campaign, phoneNumberIds: numbers.get(campaign.id) ?? [] }));
}

/** The user's campaign, or the documented 404; `lock` holds its row until the transaction ends. */
export async function findCampaign(knex: Knex, userId: number, id: number, options: { lock?: boolean } = {}): Promise<Campaign> {
  const query = Campaign.query(knex).findOne({ id, userId });
  if (options.lock) query.forUpdate();
  const campaign = await query;
  if (!campaign) throw new NotFoundError(campaignTexts.notFound);
  return campaign;
}

/** The campaign with its progress: its leads by status, its calls in progress, and when it may dial next. */
export async function getCampaign(knex: Knex, userId: number, id: number, now: Date): Promise<CampaignView & { progress: CampaignProgress }> {
  const campaign = await findCampaign(knex, userId, id);
  const leadsByStatus = await leadCounts(knex, campaign.id);
  return {
    ...(await view(knex, campaign)),
    progress: {
      leads: Object.values(leadsByStatus).reduce((sum, count) => sum + count, 0),
      leadsByStatus,
      callsInProgress: await liveCallCount(knex, userId, campaign.id),
      nextWindowOpensAt: nextWindowOpening(callingWindowOf(campaign), now),
    },
  };
}

/** Changes the fields sent, under the rules of creation; the goal variable is checked against the assistant it will have. */
export async function updateCampaign(knex: Knex, userId: number, id: number, input: UpdateCampaignBody): Promise<CampaignView> {
  const start = input.allowed_hours_start_time === undefined ? undefined : timeOfDay('allowed_hours_start_time', input.allowed_hours_start_time);
  const end = input.allowed_hours_end_time === undefined ? undefined : timeOfDay('allowed_hours_end_time', input.allowed_hours_end_time);
  return knex.transaction(async (trx) => {
    const existing = await findCampaign(trx, userId, id, { lock: true });
    const assistantId = input.assistant_id ?? existing.assistantId;
    const assistant = input.assistant_id !== undefined ? await outboundAssistant(trx, userId, input.assistant_id) : undefined;
    let goalCompletionVariable: string | null | undefined;
    const goal = input.goal_completion_variable !== undefined ? input.goal_completion_variable : existing.goalCompletionVariable;
    if ((input.goal_completion_variable !== undefined || assistant) && goal) {
      if (assistantId === null) throw ValidationError.of('assistant_id', 'The assistant id field is required.');
      goalCompletionVariable = checkGoalVariable(assistant ?? await outboundAssistant(trx, userId, assistantId), goal);
    } else if (input.goal_completion_variable !== undefined) {
      goalCompletionVariable = null;
    }
    let maxCallsInParallel: number | undefined;
    if (input.max_calls_in_parallel !== undefined) {
      const user = await User.query(trx).findById(userId).throwIfNotFound();
      maxCallsInParallel = checkParallelCalls((await planOf(trx, user.planId)).maxCallsInParallel, input.max_calls_in_parallel);
    }
    const changes: Partial<Campaign> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(assistant ? { assistantId: assistant.id } : {}),
      ...(input.timezone !== undefined ? { timezone: checkTimeZone(input.timezone) } : {}),
      ...(maxCallsInParallel !== undefined ? { maxCallsInParallel } : {}),
      ...(start !== undefined ? { allowedHoursStartTime: start } : {}),
      ...(end !== undefined ? { allowedHoursEndTime: end } : {}),
      ...(input.allowed_days !== undefined ? { allowedDays: weekdays(input.allowed_days as Weekday[]) } : {}),
      ...(input.max_retries !== undefined ? { maxRetries: input.max_retries } : {}),
      ...(input.retry_interval !== undefined ? { retryInterval: input.retry_interval } : {}),
      ...(input.retry_on_voicemail !== undefined ? { retryOnVoicemail: input.retry_on_voicemail } : {}),
      ...(input.retry_on_goal_incomplete !== undefined ? { retryOnGoalIncomplete: input.retry_on_goal_incomplete } : {}),
      ...(goalCompletionVariable !== undefined ? { goalCompletionVariable } : {}),
      ...(input.mark_complete_when_no_leads !== undefined ? { markCompleteWhenNoLeads: input.mark_complete_when_no_leads } : {}),
    };
    if (input.phone_number_ids !== undefined) await assignPhoneNumbers(trx, id, await checkPhoneNumbers(trx, userId, input.phone_number_ids));
    const campaign = await existing.$query(trx).patchAndFetch({ ...changes, updatedAt: new Date() });
    return view(trx, campaign);
  });
}

/**
 * Deletes the campaign; its leads and its number assignments go with it (migrations' cascades). A running
 * campaign is stopped first (anchor §7.4): its workflow ends the calls in progress, and finds the campaign gone.
 */
export async function deleteCampaign(knex: Knex, temporal: TemporalClient, userId: number, id: number): Promise<void> {
  const campaign = await findCampaign(knex, userId, id);
  if (campaign.status === 'in-progress') await signalCampaign(temporal, id, 'stop');
  const deleted = await Campaign.query(knex).delete().where({ id, userId });
  if (deleted === 0) throw new NotFoundError(campaignTexts.notFound);
}
