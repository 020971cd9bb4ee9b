import { Type, type Static } from '@sinclair/typebox';
import { IdField, IsoTimestamp, nullable, orNull } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';
import { WEEKDAYS } from '../../campaigns/window.ts';
import { LEAD_STATUSES } from '../leads/model.ts';
import { CAMPAIGN_STATUSES } from './model.ts';

const TimeOfDay = (description: string) => Type.String({
  pattern: '^([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9])?$',
  description: `${description} \`HH:MM\` (or \`HH:MM:SS\`), 24-hour, in the campaign's time zone; answered as \`HH:MM:SS\`.`,
  examples: ['09:00'],
  [MESSAGES]: { pattern: 'The :attribute field must match the format H:i.' },
});

const campaignFields = {
  name: Type.String({ minLength: 1, maxLength: 255 }),
  assistant_id: IdField({ description: 'One of your outbound assistants.' }),
  timezone: Type.String({ maxLength: 64, description: "IANA time zone of the calling window; the account's by default.", examples: ['Europe/Berlin'] }),
  // The plan's concurrent-call limit is the real cap (service.ts); the bound keeps any value within the column.
  max_calls_in_parallel: Type.Integer({
    minimum: 1,
    maximum: 1000,
    description: "Default 3; at most the plan's concurrent-call limit.",
    [MESSAGES]: { minimum: 'The :attribute field must be at least 1.', maximum: 'The :attribute field must not be greater than 1000.' },
  }),
  allowed_hours_start_time: TimeOfDay('Default `00:00`.'),
  allowed_hours_end_time: TimeOfDay('Default `23:59`; inclusive to the minute. An end before the start crosses midnight.'),
  allowed_days: Type.Array(Type.String({ enum: [...WEEKDAYS] }), { minItems: 1, maxItems: 7, description: 'Lowercase weekday names; all seven by default.' }),
  max_retries: Type.Integer({ minimum: 1, maximum: 5, description: 'Calls after the first; default 3.' }),
  retry_interval: Type.Integer({ minimum: 10, maximum: 4320, description: 'Minutes between the calls of a lead; default 60.' }),
  retry_on_voicemail: Type.Boolean({ description: 'Call again a lead whose voicemail answered; default false.' }),
  retry_on_goal_incomplete: Type.Boolean({ description: 'Call again a lead whose call did not meet `goal_completion_variable`; default false.' }),
  goal_completion_variable: orNull(Type.String({ maxLength: 255, description: "A `bool` field of the assistant's `post_call_schema`." })),
  mark_complete_when_no_leads: Type.Boolean({ description: 'Complete the campaign when no lead is left to call; default true.' }),
  phone_number_ids: Type.Array(IdField(), { maxItems: 100, description: 'Your numbers to dial from, in rotation; distinct.' }),
};

export const CreateCampaignBody = Type.Object({
  name: campaignFields.name,
  assistant_id: campaignFields.assistant_id,
  timezone: Type.Optional(campaignFields.timezone),
  max_calls_in_parallel: Type.Optional(campaignFields.max_calls_in_parallel),
  allowed_hours_start_time: Type.Optional(campaignFields.allowed_hours_start_time),
  allowed_hours_end_time: Type.Optional(campaignFields.allowed_hours_end_time),
  allowed_days: Type.Optional(campaignFields.allowed_days),
  max_retries: Type.Optional(campaignFields.max_retries),
  retry_interval: Type.Optional(campaignFields.retry_interval),
  retry_on_voicemail: Type.Optional(campaignFields.retry_on_voicemail),
  retry_on_goal_incomplete: Type.Optional(campaignFields.retry_on_goal_incomplete),
  goal_completion_variable: Type.Optional(campaignFields.goal_completion_variable),
  mark_complete_when_no_leads: Type.Optional(campaignFields.mark_complete_when_no_leads),
  phone_number_ids: Type.Optional(campaignFields.phone_number_ids),
}, { additionalProperties: false });
export type CreateCampaignBody = Static<typeof CreateCampaignBody>;

/** Every field optional, with the rules of creation; what is not sent is kept. */
export const UpdateCampaignBody = Type.Partial(Type.Object(campaignFields), { additionalProperties: false });
export type UpdateCampaignBody = Static<typeof UpdateCampaignBody>;

export const Campaign = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  status: Type.String({ enum: [...CAMPAIGN_STATUSES] }),
  max_calls_in_parallel: Type.Integer(),
  mark_complete_when_no_leads: Type.Boolean(),
  allowed_hours_start_time: Type.String({ examples: ['09:00:00'] }),
  allowed_hours_end_time: Type.String({ examples: ['17:00:00'] }),
  allowed_days: Type.Array(Type.String({ enum: [...WEEKDAYS] })),
  max_retries: Type.Integer(),
  retry_interval: Type.Integer({ description: 'Minutes.' }),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
  assistant_id: nullable(Type.Integer()),
  timezone: Type.String(),
  retry_on_voicemail: Type.Boolean(),
  retry_on_goal_incomplete: Type.Boolean(),
  goal_completion_variable: nullable(Type.String()),
  phone_number_ids: Type.Array(Type.Integer()),
}, { title: 'Campaign' });

const LeadCounts = Type.Object(Object.fromEntries(LEAD_STATUSES.map((status) => [status, Type.Integer()])));

export const CampaignWithProgress = Type.Object({
  ...Campaign.properties,
  progress: Type.Object({
    leads: Type.Integer({ description: 'Every lead of the campaign, secondary contacts included.' }),
    leads_by_status: LeadCounts,
    calls_in_progress: Type.Integer({ description: 'Calls of the campaign ringing or connected now.' }),
    next_window_opens_at: nullable(Type.String({ format: 'date-time', description: 'Now, when inside the calling window; null when no day is allowed.' })),
  }),
}, { title: 'CampaignWithProgress' });

export const CampaignCreated = Type.Object({ message: Type.Literal('Campaign created successfully'), data: Campaign });
export const CampaignUpdated = Type.Object({ message: Type.Literal('Campaign updated successfully'), data: Campaign });
