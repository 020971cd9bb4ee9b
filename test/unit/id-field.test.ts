import { Type } from '@sinclair/typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { IdField } from '../../src/api/schemas.ts';
import { compileValidator } from '../../src/api/validation.ts';
import { ValidationError } from '../../src/lib/errors.ts';

const Body = Type.Object({
  voice_id: IdField(),
  tool_ids: Type.Optional(Type.Array(IdField())),
  tools: Type.Optional(Type.Array(Type.Object({ assistant_id: IdField() }))),
  label: Type.Optional(Type.String()),
});

const validate = compileValidator(Body, 'json');

function errorsOf(data: unknown): Record<string, string[]> {
  try {
    validate(data);
  } catch (error) {
    if (error instanceof ValidationError) return error.errors;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('IdField', () => {
  it('turns an id written as digits into the number, in fields, arrays and nested objects', () => {
    const data = validate({ voice_id: '12', tool_ids: ['3', 4, '0005'], tools: [{ assistant_id: '7' }], label: '8' });
    expect(data).toEqual({ voice_id: 12, tool_ids: [3, 4, 5], tools: [{ assistant_id: 7 }], label: '8' });
    expectTypeOf(data.voice_id).toEqualTypeOf<number>();
  });

  it('keeps integer ids as they are', () => {
    expect(validate({ voice_id: 12, tool_ids: [1] })).toEqual({ voice_id: 12, tool_ids: [1] });
  });

  it.each(['12a', '', '1.5', '1e3', ' 12', '0x1F', true, 2.5, {}])('refuses %j with Laravel\'s "must be an integer"', (value) => {
    expect(errorsOf({ voice_id: value })).toEqual({ voice_id: ['The voice id field must be an integer.'] });
  });

  it('says which array item is wrong', () => {
    expect(errorsOf({ voice_id: 1, tool_ids: ['1', 'two'] })).toEqual({ 'tool_ids.1': ['The tool ids.1 field must be an integer.'] });
  });

  it('applies the minimum to digits as to numbers', () => {
    for (const value of [0, '0', '-3']) {
      expect(errorsOf({ voice_id: value })).toEqual({ voice_id: ['The voice id field must be at least 1.'] });
    }
  });

  it('does the same for text sources such as form fields', () => {
    const form = compileValidator(Type.Object({ id: IdField() }), 'text');
    expect(form({ id: '9' })).toEqual({ id: 9 });
    expect(() => form({ id: 'nine' })).toThrow(ValidationError);
  });
});
