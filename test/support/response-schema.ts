import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';
import { INTEGER_FROM_TEXT, MESSAGES } from '../../src/api/validation.ts';

// ajv-formats is CommonJS; under Node's ESM loader its function arrives as the default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv, formats: string[]) => Ajv;

/** Unlike the request validator, nothing is dropped or coerced: an answer must be what its schema says, as it is. */
const ajv = new Ajv({ allErrors: true, strict: false });
addFormats(ajv, ['email', 'uri', 'uuid', 'date', 'date-time', 'time']);
ajv.addKeyword({ keyword: MESSAGES });
ajv.addKeyword({ keyword: INTEGER_FROM_TEXT });

/** Where `body` departs from the route's documented `schema`, as `path message` lines; empty when it matches. */
export function schemaViolations(schema: TSchema, body: unknown): string[] {
  const validate = ajv.compile(schema);
  if (validate(body)) return [];
  return (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}${error.params && 'additionalProperty' in error.params ? ` (${String(error.params.additionalProperty)})` : ''}`);
}
