import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { INTEGER_FROM_TEXT, MESSAGES } from './validation.ts';

/** Response shapes shared by many routes, for the OpenAPI document. */
export const MessageBody = Type.Object({ message: Type.String() }, { title: 'Message' });
export const ErrorBody = Type.Object({ error: Type.String() }, { title: 'Error' });
export const StatusErrorBody = Type.Object({ status: Type.Literal(false), error: Type.String() }, { title: 'ConversationError' });
export const CodedErrorBody = Type.Object({
  success: Type.Literal(false),
  error: Type.String(),
  error_code: Type.String({ examples: ['ASSISTANT_NOT_FOUND'] }),
}, { title: 'CodedError' });
export const ValidationErrorBody = Type.Object({
  message: Type.String({ examples: ['The name field is required.'] }),
  errors: Type.Record(Type.String(), Type.Array(Type.String()), { examples: [{ name: ['The name field is required.'] }] }),
}, { title: 'ValidationError' });
export const ProviderRefusedBody = Type.Object({
  message: Type.String({ examples: ['Failed to send SMS'] }),
  error: Type.String({ description: "The provider's reason.", examples: ["'To' number is not a valid mobile number"] }),
}, { title: 'ProviderRefused' });
export const TooManyAttemptsBody = Type.Object({ message: Type.Literal('Too Many Attempts.'), retry_after: Type.Integer() }, { title: 'TooManyAttempts' });

/**
 * The largest record id the API takes. Ids are PostgreSQL `bigint` (migrations/), whose range is wider than
 * the integers JavaScript holds exactly: an id past this one could not be told from its neighbours, and a value
 * past `bigint` would reach the query and fail there.
 */
export const MAX_ID = Number.MAX_SAFE_INTEGER;

const ID_TEXT_PATTERN = positiveIntegerTextPattern(MAX_ID);

/** The largest page number of a paginated list: far past any real list, and its offset stays within `bigint`. */
const MAX_PAGE = 100_000;

/**
 * Laravel's texts of `min:1|max:N` rather than of `between`: the maximum was added to fields that had only their
 * minimum, whose text stays as it was.
 */
function atLeastOneTexts(maximum: number): Record<string, string> {
  return { minimum: 'The :attribute field must be at least 1.', maximum: `The :attribute field must not be greater than ${maximum}.` };
}

/** A positive integer record id, as a path or query parameter (text coerced to the number). */
export function IdInteger(options: { description?: string } = {}) {
  return Type.Integer({ minimum: 1, maximum: MAX_ID, [MESSAGES]: atLeastOneTexts(MAX_ID), ...options });
}

/** A page number of a paginated list. */
export function PageNumber() {
  return Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1, [MESSAGES]: atLeastOneTexts(MAX_PAGE) });
}

/** Path parameter `{id}`: a positive integer record id. */
export const IdParams = Type.Object({ id: IdInteger() });

/**
 * A regular expression of the decimal texts of the integers from 1 to `max`, leading zeros allowed: those of
 * fewer digits than `max`, and those of as many that are below it at their first differing digit, or `max`.
 */
export function positiveIntegerTextPattern(max: number): string {
  const digits = String(max);
  const shorter = digits.length > 1 ? [`[1-9][0-9]{0,${digits.length - 2}}`] : [];
  const below = [...digits].flatMap((digit, index) => {
    const low = index === 0 ? 1 : 0;
    const high = Number(digit) - 1;
    if (high < low) return [];
    const rest = digits.length - index - 1;
    return [`${digits.slice(0, index)}[${low}-${high}]${rest > 0 ? `[0-9]{${rest}}` : ''}`];
  });
  return `^0*(?:${[...shorter, ...below, digits].join('|')})$`;
}

/**
 * A record id in a JSON body: a positive integer, or its digits as a string (`"12"`), as the original platform
 * accepts both. The validator turns any integer text into the number, which the range then checks, so the
 * field's static type is `number`; any other string fails with Laravel's "must be an integer", as a value of the
 * wrong type does. The pattern says the same of strings to a reader of the document: the digits of 1 to MAX_ID
 * (`minimum` and `maximum` bind numbers only).
 */
export function IdField(options: { description?: string } = {}) {
  return Type.Unsafe<number>({
    type: ['integer', 'string'],
    minimum: 1,
    maximum: MAX_ID,
    pattern: ID_TEXT_PATTERN,
    [INTEGER_FROM_TEXT]: true,
    [MESSAGES]: { pattern: 'The :attribute field must be an integer.', ...atLeastOneTexts(MAX_ID) },
    ...options,
  });
}

/**
 * A required text field as Laravel takes it: its middleware trims every input string and turns a blank one into
 * null, so a value of only spaces fails `required` exactly as a missing one does. The validator cannot trim;
 * where the value is a name or a key, the service trims it. `requiredText` and `maxLengthText` replace Laravel's
 * texts where a route family words them otherwise (the conversations' "message is required").
 */
export function FilledString(options: { maxLength: number; description?: string; requiredText?: string; maxLengthText?: string }) {
  const { requiredText = 'The :attribute field is required.', maxLengthText, ...rest } = options;
  return Type.String({
    minLength: 1,
    pattern: '\\S',
    ...rest,
    [MESSAGES]: { required: requiredText, minLength: requiredText, pattern: requiredText, ...(maxLengthText ? { maxLength: maxLengthText } : {}) },
  });
}

/** `type: [T, 'null']` rather than a union, so a wrong value gets one message ("must be an integer"). */
export function orNull<T extends TSchema>(schema: T) {
  return Type.Unsafe<Static<T> | null>({ ...schema, type: [...[schema.type as string | string[]].flat(), 'null'] });
}

export function nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** An ISO 8601 timestamp with microseconds, as the interface writes them. */
export const IsoTimestamp = Type.String({ format: 'date-time', examples: ['2025-06-30T11:53:20.000000Z'] });

const PageLink = Type.Object({ url: nullable(Type.String()), label: Type.String(), active: Type.Boolean() });

/** A page of `item` as Laravel's length-aware paginator shapes it (lib/pagination.ts builds the body). */
export function LaravelPage<T extends TSchema>(item: T, title: string) {
  const position = nullable(Type.Integer());
  return Type.Object({
    current_page: Type.Integer(),
    data: Type.Array(item),
    first_page_url: Type.String(),
    from: position,
    last_page: Type.Integer(),
    last_page_url: Type.String(),
    links: Type.Array(PageLink),
    next_page_url: nullable(Type.String()),
    path: Type.String(),
    per_page: Type.Integer(),
    prev_page_url: nullable(Type.String()),
    to: position,
    total: Type.Integer(),
  }, { title });
}
