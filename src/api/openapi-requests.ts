/**
 * What the OpenAPI document says a request may hold, beside the validator's schemas: the validator does two
 * things no keyword of those schemas says (validation.ts), and the document says them, so a reader (or a
 * fuzzer) finds the same rules the routes apply.
 * - Unknown properties of a closed object are dropped, never refused: `additionalProperties: false` is left out.
 * - No string may hold U+0000, which PostgreSQL stores in neither `text` nor `jsonb`, in any field or key, however
 *   deep: a string gets a pattern without it, a free-form object keys without it, and a free-form value is JSON
 *   without it (`JsonWithoutNul`). What an object that is not closed keeps beside its declared properties is left
 *   undescribed, as before: an index signature there would make every typed client (the console) loose.
 */

type JsonObject = Record<string, unknown>;

/** A string without U+0000. */
export const WITHOUT_NUL = '^[^\\u0000]*$';

/** The name, under `components.schemas`, of any JSON value whose strings and keys hold no U+0000. */
export const JSON_WITHOUT_NUL = 'JsonWithoutNul';
const jsonWithoutNulRef = { $ref: `#/components/schemas/${JSON_WITHOUT_NUL}` };

export const jsonWithoutNul: JsonObject = {
  description: 'Any JSON value; no string or key in it holds the character U+0000.',
  anyOf: [
    { type: 'string', pattern: WITHOUT_NUL },
    { type: ['number', 'boolean', 'null'] },
    { type: 'array', items: jsonWithoutNulRef },
    { type: 'object', propertyNames: { pattern: WITHOUT_NUL }, additionalProperties: jsonWithoutNulRef },
  ],
};

/** Keywords whose value is one schema, a map of schemas, or a list of them. */
const ONE = new Set(['items', 'additionalProperties', 'not', 'propertyNames', 'contains', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties']);
const MAP = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
const LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords that annotate without constraining: a schema of only these takes any value. */
const ANNOTATIONS = new Set(['title', 'description', 'examples', 'default', 'deprecated', 'readOnly', 'writeOnly']);

/** Guards a pattern (a search, as JSON Schema's are) against U+0000: it must match, and the string hold none. */
const NO_NUL_AHEAD = '^(?![\\s\\S]*\\u0000)[\\s\\S]*?';

function withoutNul(pattern: string): string {
  return `${NO_NUL_AHEAD}(?:${pattern})`;
}

/**
 * Whether a string pattern already keeps U+0000 out: the guard above, the plain pattern without it, or one
 * anchored at both ends whose characters are all named (no `.`, negated class or class escape that admits it).
 * Only these cases are recognized; any other pattern is guarded.
 */
export function refusesNul(pattern: unknown): boolean {
  if (typeof pattern !== 'string') return false;
  if (pattern === WITHOUT_NUL || pattern.startsWith(NO_NUL_AHEAD)) return true;
  return /^\^.*\$$/.test(pattern) && !/\.|\[\^|\\[SWDBu0x]/.test(pattern);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function admitsStrings(schema: JsonObject): boolean {
  const types = [schema.type].flat();
  return types.includes('string') && schema.format === undefined && schema.enum === undefined && schema.const === undefined;
}

/** A request schema (plain JSON) as the document shows it. */
export function asAccepted(schema: unknown): unknown {
  if (!isObject(schema)) return schema;
  const keys = Object.keys(schema);
  if (keys.every((key) => ANNOTATIONS.has(key) || key.startsWith('x-'))) return { ...schema, ...jsonWithoutNulRef };
  const shown: JsonObject = {};
  const closed = schema.additionalProperties === false;
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'additionalProperties' && value === false) continue;
    if (ONE.has(key)) shown[key] = asAccepted(value);
    else if (MAP.has(key) && isObject(value)) shown[key] = Object.fromEntries(Object.entries(value).map(([name, item]) => [name, asAccepted(item)]));
    else if (LIST.has(key) && Array.isArray(value)) shown[key] = value.map(asAccepted);
    else shown[key] = value;
  }
  if (admitsStrings(shown) && !refusesNul(shown.pattern)) shown.pattern = typeof shown.pattern === 'string' ? withoutNul(shown.pattern) : WITHOUT_NUL;
  // A free-form object (a map of names to values, or one declared to keep what it is sent beside its properties)
  // keeps every key: no key may hold U+0000 either, nor a value it keeps.
  if ([shown.type].flat().includes('object') && !closed && (shown.patternProperties !== undefined || shown.additionalProperties !== undefined)) {
    shown.propertyNames ??= { pattern: WITHOUT_NUL };
    if (shown.additionalProperties === true) shown.additionalProperties = jsonWithoutNulRef;
  }
  return shown;
}
