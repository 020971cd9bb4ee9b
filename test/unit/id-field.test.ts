import { Type } from '@sinclair/typebox';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { IdField, MAX_ID, positiveIntegerTextPattern } from '../../src/api/schemas.ts';
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

describe('positiveIntegerTextPattern', () => {
  it('matches the digits of 1 to the maximum exactly, leading zeros allowed', () => {
    for (const max of [1, 7, 10, 100, 2500, 90_001, MAX_ID]) {
      const pattern = new RegExp(positiveIntegerTextPattern(max));
      const probes = [0, 1, 2, 9, 10, 11, 99, 100, 101, max - 1, max, max + 1, max * 10, Math.floor(max / 2)].filter((n) => n >= 0 && Number.isSafeInteger(n));
      for (const n of probes) expect(pattern.test(String(n)), `${n} of 1..${max}`).toBe(n >= 1 && n <= max);
      expect(pattern.test(`00${max}`)).toBe(true);
      for (const text of ['', '-1', '+1', '1.0', ' 1', '1e3', '0']) expect(pattern.test(text), text).toBe(false);
    }
    const ids = new RegExp(positiveIntegerTextPattern(MAX_ID));
    expect(ids.test('9007199254740991')).toBe(true);
    expect(ids.test('9007199254740992')).toBe(false);
    expect(ids.test('8999999999999999')).toBe(true);
    expect(ids.test('10000000000000000')).toBe(false);
  });

  it('is what the document says of an id given as text: what it refuses, the validator refuses', () => {
    const pattern = new RegExp((IdField() as unknown as { pattern: string }).pattern);
    for (const text of ['0', '-3', '9007199254740992', '00', 'x']) {
      expect(pattern.test(text), text).toBe(false);
      expect(Object.keys(errorsOf({ voice_id: text })), text).toEqual(['voice_id']);
    }
    for (const text of ['1', '0005', '9007199254740991']) {
      expect(pattern.test(text), text).toBe(true);
      expect(validate({ voice_id: text }).voice_id).toBe(Number(text));
    }
  });
});
