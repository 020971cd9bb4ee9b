import { Type, type Static } from '@sinclair/typebox';
import { IdInteger, LaravelPage, nullable, PageNumber } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';
import { PHONE_TRANSFER_STATUSES, SUPERVISOR_TRANSFER_STATUSES } from '../../calls/transfers.ts';
import { CALL_STATUSES, CALL_TYPES } from './model.ts';

const SqlTimestamp = Type.String({ examples: ['2025-06-30 11:53:20'], description: 'UTC, `YYYY-MM-DD HH:MM:SS`.' });
const Day = (description: string) => Type.String({ format: 'date', description, [MESSAGES]: { format: 'The :attribute field must match the format Y-m-d.' } });

/**
 * The query of `GET /user/calls`; every filter is optional and they combine. A `+` written unencoded in a query
 * string arrives as a space, so the phone number is taken with or without it (and with spaces around).
 */
export const CallListQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: [...CALL_STATUSES] })),
  type: Type.Optional(Type.String({ enum: [...CALL_TYPES] })),
  phone_number: Type.Optional(Type.String({
    pattern: '^\\s*\\+?[1-9][0-9]{1,14}\\s*$',
    description: "The client's number, E.164 (the `+` may be left out).",
    [MESSAGES]: { pattern: 'The :attribute field must be a phone number in E.164 format.' },
  })),
  assistant_id: Type.Optional(IdInteger()),
  campaign_id: Type.Optional(IdInteger()),
  date_from: Type.Optional(Day('First day of `created_at`, UTC, inclusive.')),
  date_to: Type.Optional(Day('Last day of `created_at`, UTC, inclusive.')),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 15, description: '1 to 100, default 15.' })),
  page: Type.Optional(PageNumber()),
});
export type CallListQuery = Static<typeof CallListQuery>;

/** The signed link's query; checked by the route itself, so a wrong value is a 403 like a wrong signature. */
export const RecordingQuery = Type.Object({
  expires: Type.Optional(Type.String()),
  signature: Type.Optional(Type.String()),
});

const Milliseconds = (description: string) => Type.Integer({ description });

/** voice/hooks.ts `CallTurn`, field for field: what the engine writes to the row is what the API shows. */
const CallTurn = Type.Object({
  role: Type.String({ enum: ['assistant', 'user', 'handover'], description: '`handover`: another assistant took the call over; its name is the text.' }),
  text: Type.String({ description: 'For the assistant, only what the caller heard.' }),
  started_at: Type.String({ format: 'date-time', examples: ['2026-11-20T09:00:03.412Z'], description: 'UTC, to the millisecond.' }),
  ended_at: Type.String({ format: 'date-time', examples: ['2026-11-20T09:00:05.020Z'], description: 'UTC, to the millisecond.' }),
  start_offset_ms: Milliseconds("Milliseconds from the answer (when the call's audio began) to `started_at`."),
  end_offset_ms: Milliseconds('Milliseconds from the answer to `ended_at`.'),
  interrupted: Type.Boolean({ description: "The caller cut the assistant off; always false on the caller's turns." }),
  metrics: Type.Object({
    end_of_speech_to_first_audio_ms: Type.Optional(Milliseconds("End of the caller's speech to the reply's first audio sent: the latency the caller feels.")),
    end_of_turn_decision_ms: Type.Optional(Milliseconds("End of the caller's speech to the end of their turn decided: the silence the turn policy waited.")),
    stt_final_delay_ms: Type.Optional(Milliseconds("End of the caller's speech to the recognizer's final words.")),
    llm_first_token_ms: Type.Optional(Milliseconds("The language model's request to its first token.")),
    tts_first_byte_ms: Type.Optional(Milliseconds("The first synthesis request to its first audio.")),
    turn_model_score: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: "The turn model's score of the caller's voice at the pause that ended the turn (1: sounds finished), three decimals." })),
    preemptive: Type.Optional(Type.Integer({ enum: [0, 1], description: '1 when the reply was drafted while the caller paused and kept once the turn ended.' })),
    preemptive_discarded: Type.Optional(Type.Integer({ minimum: 0, description: 'Drafts of the reply discarded during the turn: the caller went on, or their words changed.' })),
  }, { additionalProperties: false, description: "Figures of an assistant's reply: latencies in whole milliseconds, the turn model's score and the drafts; only those measured (none on the caller's turns)." }),
}, { additionalProperties: false, title: 'CallTurn' });

const JsonObject = Type.Record(Type.String(), Type.Unknown());

const CallTransfer = Type.Union([
  Type.Object({
    type: Type.Literal('phone'),
    to: Type.String({ description: 'E.164.' }),
    warm: Type.Boolean({ description: 'The person answering heard `message` before the caller was connected.' }),
    message: nullable(Type.String()),
    status: Type.String({ enum: [...PHONE_TRANSFER_STATUSES], description: '`requested` while it runs, then the carrier\'s outcome.' }),
    requested_at: Type.String({ format: 'date-time' }),
    ended_at: nullable(Type.String({ format: 'date-time' })),
    duration: nullable(Type.Integer({ description: 'Seconds the caller was connected to the number.' })),
    error: nullable(Type.String()),
  }),
  Type.Object({
    type: Type.Literal('supervisor'),
    to: Type.String({ description: 'The supervisor\'s number, E.164 (`warm_call_transfer`).' }),
    caller_id: Type.String({ description: 'The number the supervisor saw calling.' }),
    briefing: Type.String({ description: 'What the supervisor heard before the caller was connected: the briefing\'s opening words and the summary.' }),
    summary_source: Type.String({ enum: ['model', 'last_turns'], description: '`model`: the summary was written by the assistant\'s model; `last_turns`: the model failed and the last turns were read instead.' }),
    connected_message: Type.String({ description: 'What the caller heard when the supervisor was connected.' }),
    hold_music_volume: nullable(Type.Integer({ minimum: 0, maximum: 100, description: 'The hold music the caller heard while waiting; null: silence.' })),
    status: Type.String({
      enum: [...SUPERVISOR_TRANSFER_STATUSES],
      description: '`requested` while the supervisor is rung, `connected` once briefed and bridged, then `completed`; `busy`, `no-answer` or `failed` when the supervisor never took the call (the caller was told, and the call ended); `canceled` when the caller hung up first.',
    }),
    requested_at: Type.String({ format: 'date-time' }),
    connected_at: nullable(Type.String({ format: 'date-time' })),
    ended_at: nullable(Type.String({ format: 'date-time' })),
    duration: nullable(Type.Integer({ description: 'Seconds of the supervisor\'s call, the briefing included.' })),
    error: nullable(Type.String()),
    supervisor_call_id: nullable(Type.String({ description: 'The carrier\'s id of the supervisor\'s call (Twilio\'s CallSid), once placed.' })),
  }),
  Type.Object({
    type: Type.Literal('assistant'),
    assistant_id: Type.Integer(),
    assistant_name: Type.String(),
    requested_at: Type.String({ format: 'date-time' }),
  }),
]);

export const CallItem = Type.Object({
  id: Type.Integer(),
  assistant_name: Type.String(),
  campaign_name: nullable(Type.String()),
  type: Type.String({ enum: [...CALL_TYPES] }),
  duration: Type.Integer({ description: 'Seconds from answer to hang-up.' }),
  assistant_phone_number: nullable(Type.String()),
  client_phone_number: nullable(Type.String()),
  status: Type.String({ enum: [...CALL_STATUSES] }),
  transcript: Type.String({ description: '`AI: …` and `Customer: …` lines.' }),
  variables: JsonObject,
  evaluation: nullable(JsonObject),
  webhook_response: nullable(JsonObject),
  carrier_cost: Type.Number({ description: 'USD.' }),
  total_cost: Type.Number({ description: 'USD, including all fees.' }),
  answered_by: nullable(Type.String({ enum: ['human', 'machine', 'unknown'] })),
  recording_url: nullable(Type.String({ format: 'uri', description: 'A signed link that expires; null without a recording.' })),
  created_at: SqlTimestamp,
  updated_at: SqlTimestamp,
  turns: Type.Array(CallTurn, { description: 'The conversation turn by turn, with its times and latencies.' }),
  transfers: Type.Array(CallTransfer, { description: 'Transfers to a number (`call_transfer`), to a supervisor with a briefing (`warm_call_transfer`) and to another assistant (`assistant_transfer`), oldest first.' }),
  end_reason: nullable(Type.String({ examples: ['customer_hangup'] })),
  answered_at: nullable(SqlTimestamp),
  ended_at: nullable(SqlTimestamp),
}, { title: 'Call' });


export const CallPage = LaravelPage(CallItem, 'CallPage');
