import { Type, type Static } from '@sinclair/typebox';
import { FilledString, IdField, IsoTimestamp } from '../../api/schemas.ts';
import { UserSummary } from '../auth/schemas.ts';

const Email = Type.String({ minLength: 1, maxLength: 255, format: 'email' });
const TokenName = Type.String({ minLength: 1, maxLength: 255, default: 'api-token' });

export const WhiteLabelLoginBody = Type.Object({
  email: Email,
  password: Type.String({ minLength: 1, maxLength: 255 }),
  token_name: Type.Optional(TokenName),
}, { additionalProperties: false });

/** `user_id` or `email`: one is required (checked by the handler, with Laravel's `required_without` texts). */
export const WhiteLabelTokenBody = Type.Object({
  user_id: Type.Optional(IdField()),
  email: Type.Optional(Email),
  token_name: Type.Optional(TokenName),
}, { additionalProperties: false });

/** The name is stored trimmed and a blank one is missing, as Laravel trims input. */
export const WhiteLabelRegisterBody = Type.Object({
  name: FilledString({ maxLength: 255 }),
  email: Email,
  password: Type.String({ minLength: 8, maxLength: 255 }),
  timezone: Type.Optional(Type.String({ maxLength: 64, default: 'Europe/Bucharest' })),
}, { additionalProperties: false });
export type WhiteLabelRegisterBody = Static<typeof WhiteLabelRegisterBody>;

export const WhiteLabelTransferBody = Type.Object({
  user_id: Type.Optional(IdField()),
  email: Type.Optional(Email),
  transfer_type: Type.Union([Type.Literal('minutes'), Type.Literal('credits')]),
  operation: Type.Union([Type.Literal('add'), Type.Literal('remove')], { description: '`add` moves from you to the user, `remove` from the user to you.' }),
  amount: Type.Number({ exclusiveMinimum: 0, maximum: 1_000_000, multipleOf: 0.01, description: 'Minutes or chat credits (9 credits = 1 minute), to the hundredth.' }),
}, { additionalProperties: false });

export const WhiteLabelLoginResponse = Type.Object({
  message: Type.Literal('Login successful.'),
  user: UserSummary,
  token: Type.String(),
  token_name: Type.String(),
});

export const WhiteLabelTokenResponse = Type.Object({
  message: Type.Literal('Token created successfully.'),
  user: UserSummary,
  token: Type.String(),
  token_name: Type.String(),
});

export const WhiteLabelRegisterResponse = Type.Object({
  message: Type.Literal('Registration successful.'),
  user: UserSummary,
  token: Type.String(),
});

const Minutes = Type.Number({ description: "Minutes at your plan's price per minute, rounded down to the hundredth." });
const Credits = Type.Number({ description: 'Chat credits (9 to a minute), rounded down to the hundredth.' });

export const WhiteLabelUserList = Type.Object({
  data: Type.Array(Type.Object({
    id: Type.Integer(),
    name: Type.String(),
    email: Type.String(),
    minutes_balance: Minutes,
    credits_balance: Credits,
    created_at: IsoTimestamp,
  }, { title: 'WhiteLabelUser' })),
});

export const WhiteLabelTransferResponse = Type.Object({
  message: Type.Literal('Transfer completed successfully.'),
  transfer: Type.Object({ type: Type.String(), operation: Type.String(), amount: Type.Number() }),
  user: Type.Object({ id: Type.Integer(), email: Type.String(), name: Type.String(), minutes_balance: Minutes, credits_balance: Credits }),
  your_balance: Type.Object({ minutes: Minutes }),
});
