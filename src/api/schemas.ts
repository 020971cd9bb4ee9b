import { Type, type TSchema } from '@sinclair/typebox';

/** Response shapes shared by many routes, for the OpenAPI document. */
export const MessageBody = Type.Object({ message: Type.String() }, { title: 'Message' });
export const ErrorBody = Type.Object({ error: Type.String() }, { title: 'Error' });
export const StatusErrorBody = Type.Object({ status: Type.Literal(false), error: Type.String() }, { title: 'ConversationError' });
export const ValidationErrorBody = Type.Object({
  message: Type.String({ examples: ['The name field is required.'] }),
  errors: Type.Record(Type.String(), Type.Array(Type.String()), { examples: [{ name: ['The name field is required.'] }] }),
}, { title: 'ValidationError' });
export const TooManyAttemptsBody = Type.Object({ message: Type.Literal('Too Many Attempts.'), retry_after: Type.Integer() }, { title: 'TooManyAttempts' });

/** Path parameter `{id}`: a positive integer record id. */
export const IdParams = Type.Object({ id: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }) });

export function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** An ISO 8601 timestamp with microseconds, as the interface writes them. */
export const IsoTimestamp = Type.String({ format: 'date-time', examples: ['2025-06-30T11:53:20.000000Z'] });
