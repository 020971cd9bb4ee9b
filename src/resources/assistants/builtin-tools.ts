import { Type, type TSchema } from '@sinclair/typebox';
import { IdField } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

/**
 * Built-in tools of an assistant (`tools`): sent flat (`{type, ...fields}`), stored and listed nested
 * (`{type, data: {...fields}}`). Each type's fields are validated by the schema chosen by its `type`.
 */
export const BUILTIN_TOOL_TYPES = [
  'end_call', 'call_transfer', 'warm_call_transfer', 'dtmf_input', 'collect_keypad', 'calendar_integration', 'assistant_transfer',
] as const;
export type BuiltinToolType = (typeof BUILTIN_TOOL_TYPES)[number];

export const E164 = Type.String({
  maxLength: 16,
  pattern: '^\\+[1-9][0-9]{6,14}$',
  examples: ['+14155550123'],
  [MESSAGES]: { pattern: 'The :attribute field must be a phone number in E.164 format.' },
});

export const WebUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  format: 'uri',
  pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^\\s]+$',
  [MESSAGES]: { format: 'The :attribute field must be a valid URL.', pattern: 'The :attribute field must be a valid URL.' },
});

/**
 * A warm transfer's supervisor: a number in E.164, or with `custom_sip` a SIP URI (`sip:desk@pbx.example.com`),
 * which Parley's SIP gateway dials on calls through a SIP trunk (the rules check the two agree).
 */
const SupervisorAddress = Type.String({
  maxLength: 255,
  pattern: '^(\\+[1-9][0-9]{6,14}|[Ss][Ii][Pp][Ss]?:[^\\s]+)$',
  examples: ['+14155550123', 'sip:desk@pbx.example.com'],
  [MESSAGES]: { pattern: 'The :attribute field must be a phone number in E.164 format.' },
});

const Description = Type.String({ maxLength: 500 });

/** The documented English texts of `warm_call_transfer` when the assistant leaves them out. */
export const WARM_TRANSFER_DEFAULTS = {
  hold_music_volume: 80,
  hold_message: 'Please hold while I connect you with a colleague.',
  summary_instructions: 'Summarise the conversation so far for the colleague taking over: who is calling, what they want, and what has been agreed.',
  briefing_initial_message: 'Hello, I have a caller for you. Here is a short summary.',
  connected_message: 'You are now connected. Thank you for waiting.',
} as const;

const fieldsByType: Record<BuiltinToolType, Record<string, TSchema>> = {
  end_call: { description: Type.Optional(Description) },
  call_transfer: {
    phone_number: E164,
    description: Type.Optional(Description),
    // The assistant picks the number from the conversation instead of using `phone_number`.
    custom: Type.Optional(Type.Boolean({ default: false })),
    timezone: Type.Optional(Type.String({ maxLength: 64 })),
    warm_transfer: Type.Optional(Type.Boolean({ default: false })),
    warm_transfer_message: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  warm_call_transfer: {
    supervisor_phone: SupervisorAddress,
    outbound_phone_id: IdField(),
    description: Type.String({ minLength: 1, maxLength: 500 }),
    custom_sip: Type.Optional(Type.Boolean({ default: false })),
    caller_id_mode: Type.Optional(Type.Union(
      [Type.Literal('outbound_number'), Type.Literal('customer_number'), Type.Literal('custom')],
      { default: 'outbound_number' },
    )),
    custom_caller_id: Type.Optional(E164),
    hold_music: Type.Optional(Type.Union([Type.Literal('hold_music'), Type.Literal('none')], { default: 'hold_music' })),
    hold_music_volume: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, default: WARM_TRANSFER_DEFAULTS.hold_music_volume })),
    hold_message: Type.Optional(Type.String({ maxLength: 1000, default: WARM_TRANSFER_DEFAULTS.hold_message })),
    summary_instructions: Type.Optional(Type.String({ maxLength: 1000, default: WARM_TRANSFER_DEFAULTS.summary_instructions })),
    briefing_initial_message: Type.Optional(Type.String({ maxLength: 1000, default: WARM_TRANSFER_DEFAULTS.briefing_initial_message })),
    connected_message: Type.Optional(Type.String({ maxLength: 1000, default: WARM_TRANSFER_DEFAULTS.connected_message })),
  },
  dtmf_input: { description: Type.Optional(Description) },
  collect_keypad: {
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, default: 5 })),
    stop_key: Type.Optional(Type.Union([Type.Literal('#'), Type.Literal('*')], { default: '#' })),
  },
  calendar_integration: {
    calcom_api_key: Type.String({ minLength: 1, maxLength: 255, description: 'Stored encrypted.' }),
    calcom_event_slug: Type.String({ minLength: 1, maxLength: 255 }),
    calcom_team_slug: Type.Optional(Type.String({ maxLength: 255 })),
    calcom_endpoint: Type.Optional(Type.Union([Type.Literal('us'), Type.Literal('eu'), Type.Literal('custom')], { default: 'us' })),
    calcom_custom_endpoint: Type.Optional(WebUrl),
    calcom_booking_fields: Type.Optional(Type.Array(Type.Object({
      slug: Type.String({ minLength: 1, maxLength: 100 }),
      type: Type.String({ minLength: 1, maxLength: 50 }),
      label: Type.Optional(Type.String({ maxLength: 255 })),
      required: Type.Optional(Type.Boolean({ default: false })),
      options: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100 })),
    }, { additionalProperties: false }), { maxItems: 50 })),
    description: Type.Optional(Description),
  },
  assistant_transfer: {
    assistant_id: IdField(),
    description: Type.Optional(Description),
    message_before_transfer: Type.Optional(Type.String({ maxLength: 500 })),
    speak_transfer_greeting: Type.Optional(Type.Boolean({ default: true })),
  },
};

/** One item of `tools`: its `type` picks the schema of the other fields (unknown fields are dropped). */
export const BuiltinToolItem = Type.Unsafe<{ type: BuiltinToolType } & Record<string, unknown>>({
  type: 'object',
  required: ['type'],
  properties: { type: Type.Union(BUILTIN_TOOL_TYPES.map((value) => Type.Literal(value))) },
  allOf: BUILTIN_TOOL_TYPES.map((type) => ({
    if: { properties: { type: { const: type } }, required: ['type'] },
    then: Type.Object({ type: Type.Literal(type), ...fieldsByType[type] }, { additionalProperties: false }),
  })),
  examples: [{ type: 'call_transfer', phone_number: '+14155550123', description: 'Transfer when the caller asks for a person.' }],
});

export interface StoredBuiltinTool {
  type: BuiltinToolType;
  data: Record<string, unknown>;
}

/** Fields of built-in tools that are secrets, encrypted at rest like tool headers. */
export const SECRET_FIELDS: Partial<Record<BuiltinToolType, string[]>> = { calendar_integration: ['calcom_api_key'] };
