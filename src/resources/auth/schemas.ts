import { Type, type Static } from '@sinclair/typebox';
import { FilledString } from '../../api/schemas.ts';

/** The name is stored trimmed and a blank one is missing, as Laravel trims input. */
export const RegisterBody = Type.Object({
  name: FilledString({ maxLength: 255 }),
  email: Type.String({ minLength: 1, maxLength: 255, format: 'email' }),
  password: Type.String({ minLength: 8, maxLength: 255 }),
  timezone: Type.Optional(Type.String({ maxLength: 64, examples: ['Europe/Bucharest'] })),
}, { additionalProperties: false });
export type RegisterBody = Static<typeof RegisterBody>;

export const LoginBody = Type.Object({
  email: Type.String({ minLength: 1, maxLength: 255, format: 'email' }),
  password: Type.String({ minLength: 1, maxLength: 255 }),
  token_name: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
}, { additionalProperties: false });

export const UserSummary = Type.Object({ id: Type.Integer(), name: Type.String(), email: Type.String() });

export const RegisterResponse = Type.Object({
  message: Type.Literal('Registration successful.'),
  user: UserSummary,
  token: Type.String({ examples: ['1|Xy8…'] }),
});

export const LoginResponse = Type.Object({
  message: Type.Literal('Login successful.'),
  user: UserSummary,
  token: Type.String(),
  token_name: Type.String(),
});
