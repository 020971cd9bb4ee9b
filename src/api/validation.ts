import { Ajv, type ErrorObject, type SchemaValidateFunction, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Static, TSchema } from '@sinclair/typebox';
import { ValidationError } from '../lib/errors.ts';

// ajv-formats is CommonJS; under Node's ESM loader its function arrives as the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv, formats: string[]) => Ajv;

/**
 * Schema keyword carrying field-specific texts by ajv keyword, e.g. `{ pattern: 'The :attribute ...' }`.
 * Prefixed with `x-` so that the OpenAPI document may keep it.
 */
export const MESSAGES = 'x-messages';

/**
 * Schema keyword of integer fields that also take their digits as a string (`"12"`), as the original platform
 * does: such a string becomes the number before the field's other rules run, so services only see numbers.
 * Other strings are left to the field's `pattern` (see IdField in schemas.ts).
 */
export const INTEGER_FROM_TEXT = 'x-integer-from-text';
const INTEGER_PATTERN = '^-?[0-9]+$';
const integerText = new RegExp(INTEGER_PATTERN);

const integerFromText: SchemaValidateFunction = (enabled: boolean, data: unknown, _parentSchema, place) => {
  // A field has a parent to write to; the root of a body never has this keyword.
  if (enabled && place?.parentData && typeof data === 'string' && integerText.test(data)) place.parentData[place.parentDataProperty] = Number(data);
  return true;
};

function createAjv(coerceTypes: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    // Puts each failing keyword's schema on its error: custom texts and "between" need the field's schema.
    verbose: true,
    // Unknown fields are dropped where a schema closes its object, never stored.
    removeAdditional: true,
    useDefaults: true,
    coerceTypes,
    strict: false,
  });
  addFormats(ajv, ['email', 'uri', 'uuid', 'date', 'date-time', 'time']);
  ajv.addKeyword({ keyword: MESSAGES });
  // Without a `type`, the keyword joins ajv's first rule group, which runs before `minimum` and `pattern`; being
  // `modifying`, ajv reads the field again after it, so those rules see the number.
  ajv.addKeyword({ keyword: INTEGER_FROM_TEXT, schemaType: 'boolean', modifying: true, errors: false, validate: integerFromText });
  return ajv;
}

// JSON bodies keep their types; query strings and form fields are text and are coerced.
const strictAjv = createAjv(false);
const coercingAjv = createAjv(true);

type SchemaNode = Record<string, unknown> & {
  properties?: Record<string, SchemaNode>;
  minimum?: number;
  maximum?: number;
  [MESSAGES]?: Record<string, string>;
};

/** `phone_number` → `phone number`; `schema.0.name` stays a dot path, as Laravel prints them. */
export function attributeName(path: string): string {
  return path.replace(/_/g, ' ');
}

function fieldPath(error: ErrorObject): string {
  const base = error.instancePath.split('/').slice(1).map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') base.push(String(error.params.missingProperty));
  return base.join('.');
}

/** The schema of the field an error is about (for `required`, the missing property's own schema). */
function fieldSchema(error: ErrorObject): SchemaNode | undefined {
  const parent: SchemaNode | undefined = error.parentSchema;
  if (error.keyword === 'required') return parent?.properties?.[String(error.params.missingProperty)];
  return parent;
}

const typeTexts: Record<string, string> = {
  string: 'must be a string',
  integer: 'must be an integer',
  number: 'must be a number',
  boolean: 'must be true or false',
  array: 'must be an array',
  object: 'must be an object',
};

const formatTexts: Record<string, string> = {
  email: 'must be a valid email address',
  uri: 'must be a valid URL',
  uuid: 'must be a valid UUID',
  date: 'must be a valid date',
  'date-time': 'must be a valid date',
  time: 'must be a valid time',
};

/** Laravel's wording for one ajv error, or `undefined` for errors that only summarise others. */
export function laravelMessage(error: ErrorObject, attribute: string, schema: SchemaNode | undefined): string | undefined {
  const custom = schema?.[MESSAGES]?.[error.keyword];
  if (custom) return custom.replace(/:attribute/g, attribute);
  const field = `The ${attribute} field`;
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return `${field} is required.`;
    case 'type': {
      const types = String(params.type).split(',').filter((type) => type !== 'null');
      return `${field} ${typeTexts[types[0] ?? ''] ?? 'is invalid'}.`;
    }
    case 'minLength':
      // Laravel treats an empty string as missing.
      return params.limit === 1 ? `${field} is required.` : `${field} must be at least ${String(params.limit)} characters.`;
    case 'maxLength':
      return `${field} must not be greater than ${String(params.limit)} characters.`;
    case 'minimum':
    case 'maximum':
      if (typeof schema?.minimum === 'number' && typeof schema.maximum === 'number') {
        return `${field} must be between ${schema.minimum} and ${schema.maximum}.`;
      }
      return error.keyword === 'minimum'
        ? `${field} must be at least ${String(params.limit)}.`
        : `${field} must not be greater than ${String(params.limit)}.`;
    case 'exclusiveMinimum':
      return `${field} must be greater than ${String(params.limit)}.`;
    case 'exclusiveMaximum':
      return `${field} must be less than ${String(params.limit)}.`;
    case 'enum':
    case 'const':
      return `The selected ${attribute} is invalid.`;
    case 'format':
      return `${field} ${formatTexts[String(params.format)] ?? 'format is invalid'}.`;
    case 'pattern':
      return `${field} format is invalid.`;
    case 'minItems':
      return Number(params.limit) === 1 ? `${field} is required.` : `${field} must have at least ${String(params.limit)} items.`;
    case 'maxItems':
      return `${field} must not have more than ${String(params.limit)} items.`;
    case 'minProperties':
      return `${field} is required.`;
    case 'if':
    case 'anyOf':
    case 'oneOf':
      return undefined;
    default:
      return `${field} is invalid.`;
  }
}

/** Turns ajv's errors into Laravel's `errors` object, fields in the order the schema declares them. */
export function toLaravelErrors(errors: ErrorObject[], rootSchema: TSchema): Record<string, string[]> {
  const order = Object.keys((rootSchema as SchemaNode).properties ?? {});
  const rank = (path: string) => {
    const index = order.indexOf(path.split('.')[0] ?? '');
    return index === -1 ? order.length : index;
  };
  const collected = new Map<string, string[]>();
  const entries = errors
    .map((error, position) => ({ error, position, path: fieldPath(error) }))
    .sort((a, b) => rank(a.path) - rank(b.path) || a.position - b.position);
  const missing = new Set<string>();
  for (const { error, path } of entries) {
    const message = laravelMessage(error, attributeName(path), fieldSchema(error));
    if (!message) continue;
    const key = path === '' ? 'body' : path;
    // A missing field fails only its "required" rule, as in Laravel: nothing else is said about it.
    if (missing.has(key)) continue;
    if (message.endsWith(' is required.')) {
      missing.add(key);
      collected.set(key, [message]);
      continue;
    }
    const list = collected.get(key) ?? [];
    if (!list.includes(message)) list.push(message);
    collected.set(key, list);
  }
  if (collected.size === 0 && errors.length > 0) collected.set('body', ['The given data was invalid.']);
  return Object.fromEntries(collected);
}

/** The 422 text of a field holding U+0000, which PostgreSQL stores in neither `text` nor `jsonb`. */
export function nullCharacterMessage(path: string): string {
  return `The ${attributeName(path === '' ? 'body' : path)} field must not contain null characters.`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * The dot paths of the strings holding U+0000, however deep (free-form objects such as `variables` or a tool's
 * `schema` included); an object key holding one counts against the object. Only plain data is walked.
 */
export function nullCharacterPaths(value: unknown, path: string[] = [], found: string[] = []): string[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push(path.join('.'));
  } else if (Array.isArray(value)) {
    value.forEach((item, index) => nullCharacterPaths(item, [...path, String(index)], found));
  } else if (isPlainObject(value)) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\u0000')) found.push(path.join('.'));
      else nullCharacterPaths(item, [...path, key], found);
    }
  }
  return found;
}

export type Validator<S extends TSchema> = (data: unknown) => Static<S>;

/**
 * Compiles a schema once. The returned function fills defaults, drops unknown fields, and returns the data
 * typed by the schema, or throws a 422 ValidationError in Laravel's shape. Every route's params, query and body
 * pass here, so this is also where text that PostgreSQL cannot store (U+0000) is refused, in any field.
 */
export function compileValidator<S extends TSchema>(schema: S, source: 'json' | 'text'): Validator<S> {
  const validate: ValidateFunction = (source === 'json' ? strictAjv : coercingAjv).compile(schema);
  return (data: unknown) => {
    const valid = validate(data);
    // After ajv, so that the fields it dropped are not reported.
    const withNul = nullCharacterPaths(data);
    if (valid && withNul.length === 0) return data;
    const errors = valid ? {} : toLaravelErrors(validate.errors ?? [], schema);
    for (const path of withNul) {
      const key = path === '' ? 'body' : path;
      const message = nullCharacterMessage(path);
      const list = errors[key] ?? [];
      if (!list.includes(message)) list.push(message);
      errors[key] = list;
    }
    throw new ValidationError(errors);
  };
}
