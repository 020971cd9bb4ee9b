import { Type } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/lib/errors.ts';
import { attributeName, compileValidator, MESSAGES } from '../../src/api/validation.ts';

const Tool = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z_]*$', [MESSAGES]: { pattern: 'The :attribute field must contain only lowercase letters and underscores and start with a letter.' } }),
  method: Type.Union([Type.Literal('GET'), Type.Literal('POST')]),
  timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, default: 10 })),
  endpoint: Type.String({ format: 'uri' }),
  email: Type.Optional(Type.String({ format: 'email' })),
  phone_number: Type.Optional(Type.String({ minLength: 1 })),
  enabled: Type.Optional(Type.Boolean()),
  schema: Type.Optional(Type.Array(Type.Object({
    name: Type.String({ minLength: 2, maxLength: 32 }),
    type: Type.String({ enum: ['string', 'number', 'boolean'] }),
  }, { additionalProperties: false }))),
  variables: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
}, { additionalProperties: false });

const validate = compileValidator(Tool, 'json');

function errorsOf(data: unknown): { message: string; errors: Record<string, string[]> } {
  try {
    validate(data);
  } catch (error) {
    if (error instanceof ValidationError) return { message: error.message, errors: error.errors };
    throw error;
  }
  throw new Error('expected a ValidationError');
}

const valid = { name: 'get_weather', method: 'GET', endpoint: 'https://api.example.com/weather' };

describe('compileValidator', () => {
  it('returns the data with defaults filled and unknown fields dropped, keeping free-form objects whole', () => {
    const data = validate({ ...valid, extra: 'dropped', variables: { customer_name: 'Ada', nested: { a: 1 } } });
    expect(data).toEqual({ ...valid, timeout: 10, variables: { customer_name: 'Ada', nested: { a: 1 } } });
  });

  it.each([
    [{ ...valid, name: undefined }, 'name', 'The name field is required.'],
    [{ ...valid, name: '' }, 'name', 'The name field is required.'],
    [{ ...valid, name: 'x'.repeat(65) }, 'name', 'The name field must not be greater than 64 characters.'],
    [{ ...valid, name: 'Get-Weather' }, 'name', 'The name field must contain only lowercase letters and underscores and start with a letter.'],
    [{ ...valid, method: 'FETCH' }, 'method', 'The selected method is invalid.'],
    [{ ...valid, timeout: 0 }, 'timeout', 'The timeout field must be between 1 and 30.'],
    [{ ...valid, timeout: 31 }, 'timeout', 'The timeout field must be between 1 and 30.'],
    [{ ...valid, timeout: 2.5 }, 'timeout', 'The timeout field must be an integer.'],
    [{ ...valid, timeout: '5' }, 'timeout', 'The timeout field must be an integer.'],
    [{ ...valid, endpoint: 'not a url' }, 'endpoint', 'The endpoint field must be a valid URL.'],
    [{ ...valid, email: 'nope' }, 'email', 'The email field must be a valid email address.'],
    [{ ...valid, phone_number: '' }, 'phone_number', 'The phone number field is required.'],
    [{ ...valid, enabled: 'yes' }, 'enabled', 'The enabled field must be true or false.'],
    [{ ...valid, schema: 'x' }, 'schema', 'The schema field must be an array.'],
    [{ ...valid, schema: [{ name: 'a', type: 'string' }] }, 'schema.0.name', 'The schema.0.name field must be at least 2 characters.'],
    [{ ...valid, schema: [{ name: 'ok', type: 'string' }, { name: 'ok' }] }, 'schema.1.type', 'The schema.1.type field is required.'],
  ])('words a broken rule as Laravel does (%#: %s)', (data, field, message) => {
    const result = errorsOf(data);
    expect(result.errors[field]).toEqual([message]);
  });

  it('accepts values at the edges of each range', () => {
    expect(() => validate({ ...valid, timeout: 1, name: 'x'.repeat(64) })).not.toThrow();
    expect(() => validate({ ...valid, timeout: 30, schema: [{ name: 'x'.repeat(32), type: 'number' }] })).not.toThrow();
  });

  it('leads with the first error in schema order and counts the rest', () => {
    const result = errorsOf({ timeout: 99, method: 'X' });
    expect(Object.keys(result.errors)).toEqual(['name', 'method', 'timeout', 'endpoint']);
    expect(result.message).toBe('The name field is required. (and 3 more errors)');
    expect(errorsOf({ ...valid, timeout: 0, method: 'X' }).message).toBe('The selected method is invalid. (and 1 more error)');
  });

  it('coerces text sources such as query strings', () => {
    const query = compileValidator(Type.Object({ page: Type.Integer({ minimum: 1 }), deep: Type.Optional(Type.Boolean()) }), 'text');
    expect(query({ page: '3', deep: 'true' })).toEqual({ page: 3, deep: true });
  });
});

describe('U+0000 in text', () => {
  it('is refused in any string of the input, free-form objects and their keys included, naming the field', () => {
    expect(errorsOf({ ...valid, phone_number: '+1\u0000' })).toEqual({
      message: 'The phone number field must not contain null characters.',
      errors: { phone_number: ['The phone number field must not contain null characters.'] },
    });
    expect(errorsOf({ ...valid, schema: [{ name: 'ab', type: 'string' }, { name: 'c\u0000d', type: 'string' }] }).errors)
      .toEqual({ 'schema.1.name': ['The schema.1.name field must not contain null characters.'] });
    expect(errorsOf({ ...valid, variables: { deep: { list: ['x\u0000'] } } }).errors)
      .toEqual({ 'variables.deep.list.0': ['The variables.deep.list.0 field must not contain null characters.'] });
    expect(errorsOf({ ...valid, variables: { 'k\u0000': 1 } }).errors).toEqual({ variables: ['The variables field must not contain null characters.'] });
  });

  it('is reported beside the other errors, and not for fields the schema drops', () => {
    expect(errorsOf({ ...valid, method: 'PUT', phone_number: '\u0000' }).errors).toEqual({
      method: ['The selected method is invalid.'],
      phone_number: ['The phone number field must not contain null characters.'],
    });
    expect(validate({ ...valid, unknown: '\u0000' })).toEqual({ ...valid, timeout: 10 });
  });
});

describe('attributeName', () => {
  it('reads underscores as spaces and keeps dot paths', () => {
    expect(attributeName('phone_number')).toBe('phone number');
    expect(attributeName('schema.0.name')).toBe('schema.0.name');
  });
});
