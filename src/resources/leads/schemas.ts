import { Type, type Static } from '@sinclair/typebox';
import { IdField, IdInteger, LaravelPage, PageNumber } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';
import { LEAD_STATUSES, SETTABLE_LEAD_STATUSES } from './model.ts';

const SqlTimestamp = Type.String({ examples: ['2025-06-30 11:53:20'], description: 'UTC, `YYYY-MM-DD HH:MM:SS`.' });
const Day = (description: string) => Type.String({ format: 'date', description, [MESSAGES]: { format: 'The :attribute field must match the format Y-m-d.' } });
const Variables = Type.Record(Type.String(), Type.Unknown(), { description: 'Free key-value pairs for the prompt (`{{customer_name}}`); `customer_name` and `email` are the documented keys.' });
const PhoneNumberText = Type.String({ minLength: 1, maxLength: 64, description: 'E.164 (`+14155550123`); spaces, dashes and brackets are dropped.' });

export const SecondaryContactBody = Type.Object({
  phone_number: PhoneNumberText,
  variables: Type.Optional(Variables),
}, { additionalProperties: false });

export const CreateLeadBody = Type.Object({
  phone_number: PhoneNumberText,
  campaign_id: IdField({ description: 'One of your campaigns.' }),
  variables: Type.Optional(Variables),
  variable: Type.Optional({ ...Variables, description: 'Another name of `variables`, as one published integration sends it; `variables` wins where both name a key.' }),
  allow_dupplicate: Type.Optional(Type.Boolean({ description: 'Add the lead even if the campaign has one with this number (spelled with "pp", as published).' })),
  secondary_contacts: Type.Optional(Type.Array(SecondaryContactBody, { maxItems: 20, description: "Other numbers of the same person, called in this order once the lead's own retries are used up." })),
}, { additionalProperties: false });
export type CreateLeadBody = Static<typeof CreateLeadBody>;

/** The four fields that may change; the body is left open so that any other field can be refused by name. */
export const UpdateLeadBody = Type.Object({
  campaign_id: Type.Optional(IdField({ description: 'Another of your campaigns; the secondary contacts move with the lead.' })),
  phone_number: Type.Optional(PhoneNumberText),
  status: Type.Optional(Type.String({ enum: [...SETTABLE_LEAD_STATUSES] })),
  variables: Type.Optional({ ...Variables, description: 'Merged into the stored variables, not replacing them.' }),
  variable: Type.Optional({ ...Variables, description: 'Another name of `variables`.' }),
});
export type UpdateLeadBody = Static<typeof UpdateLeadBody>;

export const LeadListQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: [...LEAD_STATUSES] })),
  campaign_id: Type.Optional(IdInteger()),
  phone_number: Type.Optional(Type.String({
    pattern: '^[\\s+0-9().-]{1,32}$',
    description: 'Part of the number: leads whose number contains these digits.',
    [MESSAGES]: { pattern: 'The :attribute field must contain only digits, spaces, +, -, ( and ).' },
  })),
  date_from: Type.Optional(Day('First day of `created_at`, UTC, inclusive.')),
  date_to: Type.Optional(Day('Last day of `created_at`, UTC, inclusive.')),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});
export type LeadListQuery = Static<typeof LeadListQuery>;

export const ImportQuery = Type.Object({
  allow_dupplicate: Type.Optional(Type.Boolean({ default: false, description: 'Import rows whose number the campaign already has.' })),
});

const SecondaryContact = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String(),
  variables: Variables,
  status: Type.String({ enum: [...LEAD_STATUSES] }),
  created_at: SqlTimestamp,
  updated_at: SqlTimestamp,
});

export const Lead = Type.Object({
  id: Type.Integer(),
  campaign_id: Type.Integer(),
  phone_number: Type.String({ examples: ['+14155550123'] }),
  variables: Variables,
  status: Type.String({ enum: [...LEAD_STATUSES] }),
  created_at: SqlTimestamp,
  updated_at: SqlTimestamp,
  campaign: Type.Object({ id: Type.Integer(), name: Type.String() }),
  secondary_contacts: Type.Array(SecondaryContact),
}, { title: 'Lead' });

export const LeadCreated = Type.Object({ message: Type.Literal('Lead created successfully'), data: Lead });
export const LeadPage = LaravelPage(Lead, 'LeadPage');

export const ImportReport = Type.Object({
  message: Type.Literal('Leads imported'),
  rows: Type.Integer({ description: 'Data rows read (the header row not counted).' }),
  created: Type.Integer(),
  duplicates: Type.Integer({ description: 'Rows whose number the campaign already had, or an earlier row of the file.' }),
  invalid: Type.Integer(),
  reasons: Type.Array(Type.Object({
    row: Type.Integer({ description: 'Line of the file, the header being line 1.' }),
    phone_number: Type.String({ description: 'As written in the file.' }),
    reason: Type.String(),
  }), { description: 'Why rows were not created, the first 100.' }),
  reasons_omitted: Type.Integer({ description: 'Reasons past the first 100, not listed.' }),
}, { title: 'LeadImportReport' });
