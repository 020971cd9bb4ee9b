import { describe, expect, it } from 'vitest';
import { fillTemplate } from '../../src/agent/template.ts';
import { buildToolRequest, parametersSchema } from '../../src/agent/tools.ts';

describe('fillTemplate', () => {
  it('fills {{variables}}, with or without spaces inside the braces', () => {
    expect(fillTemplate('Hello {{customer_name}}, your order {{ order.id }} ships {{day}}.', { customer_name: 'Ada', 'order.id': 42, day: 'today' }))
      .toBe('Hello Ada, your order 42 ships today.');
  });

  it('leaves a missing variable visible instead of failing', () => {
    expect(fillTemplate('Hi {{name}}, {{missing}}!', { name: 'Bo' })).toBe('Hi Bo, {{missing}}!');
    expect(fillTemplate('{{x}}', { x: null })).toBe('{{x}}');
  });

  it('writes objects as JSON and leaves text without placeholders alone', () => {
    expect(fillTemplate('{{data}}', { data: { a: 1 } })).toBe('{"a":1}');
    expect(fillTemplate('plain {text} and {{ }}', {})).toBe('plain {text} and {{ }}');
  });
});

describe('buildToolRequest', () => {
  it('fills path placeholders and sends the rest as query parameters for GET', () => {
    expect(buildToolRequest({ endpoint: 'https://api.example.com/orders/{order_id}', method: 'GET' }, { order_id: 'A/1', verbose: true }))
      .toEqual({ url: 'https://api.example.com/orders/A%2F1?verbose=true', body: undefined });
  });

  it('sends a JSON body for POST', () => {
    expect(buildToolRequest({ endpoint: 'https://api.example.com/book', method: 'POST' }, { date: '2025-01-01', people: 2 }))
      .toEqual({ url: 'https://api.example.com/book', body: '{"date":"2025-01-01","people":2}' });
  });
});

describe('parametersSchema', () => {
  it('turns a tool schema into JSON Schema parameters, required by default', () => {
    expect(parametersSchema([
      { name: 'city', type: 'string', description: 'City name' },
      { name: 'days', type: 'number', description: 'How many days', required: false },
    ])).toEqual({
      type: 'object',
      properties: { city: { type: 'string', description: 'City name' }, days: { type: 'number', description: 'How many days' } },
      required: ['city'],
      additionalProperties: false,
    });
  });
});
