import { describe, expect, it } from 'vitest';
import { zonedIsoTimestamp } from '../../src/lib/time.ts';
import { conversationEndedPayload, type ConversationEndedFacts } from '../../src/webhooks/conversation-ended.ts';

const facts = (overrides: Partial<ConversationEndedFacts['conversation']> = {}, sender: ConversationEndedFacts['sender'] = null): ConversationEndedFacts => ({
  sender,
  conversation: {
    id: 17,
    uuid: '5f0c7a8e-2b1d-4c3e-9f4a-0123456789ab',
    type: 'widget',
    customerPhone: null,
    customerName: null,
    messageCount: 3,
    variables: { customer_name: 'Ada', order: 42 },
    evaluation: { status: true, summary: 'Asked about an order.' },
    createdAt: new Date('2026-11-25T12:59:58.250Z'),
    endedAt: new Date('2026-11-25T13:35:00.000Z'),
    ...overrides,
  },
  assistantUuid: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
  timeZone: 'Europe/Berlin',
  messages: [
    { role: 'assistant', content: 'Hi Ada!', createdAt: new Date('2026-11-25T13:00:00.000Z') },
    { role: 'user', content: 'Where is\nmy order?', createdAt: new Date('2026-11-25T13:04:59.900Z') },
    { role: 'assistant', content: 'On its way.', createdAt: new Date('2026-11-25T13:05:03.000Z') },
  ],
});

describe('conversationEndedPayload (W2, §13.2)', () => {
  it('has every field, in order, from the conversation\'s records', () => {
    const payload = conversationEndedPayload(facts());
    expect(Object.keys(payload)).toEqual([
      'id', 'conversation_id', 'assistant_id', 'type', 'message_count', 'status', 'extracted_variables', 'input_variables', 'transcript',
      'formatted_transcript', 'attachments', 'customer_phone', 'customer_name', 'sender', 'created_at', 'ended_at',
    ]);
    expect(payload).toEqual({
      id: 17,
      conversation_id: '5f0c7a8e-2b1d-4c3e-9f4a-0123456789ab',
      assistant_id: '0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d',
      type: 'widget',
      message_count: 3,
      status: 'ended',
      extracted_variables: { status: true, summary: 'Asked about an order.' },
      input_variables: { customer_name: 'Ada', order: 42 },
      transcript: [
        { role: 'assistant', content: 'Hi Ada!', timestamp: '2026-11-25T14:00:00+01:00', timestamp_unix: 1795611600 },
        { role: 'user', content: 'Where is\nmy order?', timestamp: '2026-11-25T14:04:59+01:00', timestamp_unix: 1795611899 },
        { role: 'assistant', content: 'On its way.', timestamp: '2026-11-25T14:05:03+01:00', timestamp_unix: 1795611903 },
      ],
      formatted_transcript: 'AI: Hi Ada!\nCustomer: Where is my order?\nAI: On its way.',
      attachments: [],
      customer_phone: null,
      customer_name: 'Ada',
      sender: null,
      created_at: '2026-11-25T12:59:58.250Z',
      ended_at: '2026-11-25T13:35:00.000Z',
    });
  });

  it('sends {} for a conversation never evaluated, and takes the customer only from string variables', () => {
    const payload = conversationEndedPayload(facts({ evaluation: null, variables: { customer_phone: '+4915112345678', customer_name: 7 } }));
    expect(payload).toMatchObject({ extracted_variables: {}, customer_phone: '+4915112345678', customer_name: null });
    expect(conversationEndedPayload(facts({ variables: { customer_name: '  ' } })).customer_name).toBeNull();
  });

  it('names a WhatsApp conversation\'s customer and sender', () => {
    const payload = conversationEndedPayload(facts(
      { type: 'whatsapp', customerPhone: '+4915112345678', customerName: 'Ada L.', variables: {} },
      { phoneNumber: '+14155550100', displayName: 'Acme Support' },
    ));
    expect(payload).toMatchObject({
      type: 'whatsapp', customer_phone: '+4915112345678', customer_name: 'Ada L.', sender: { phone_number: '+14155550100', display_name: 'Acme Support' },
    });
  });
});

describe('zonedIsoTimestamp', () => {
  it('reads the instant on the zone\'s wall clock with its offset, summer time and half hours included', () => {
    const instant = new Date('2026-07-01T23:30:09.999Z');
    expect(zonedIsoTimestamp(instant, 'UTC')).toBe('2026-07-01T23:30:09+00:00');
    expect(zonedIsoTimestamp(instant, 'America/New_York')).toBe('2026-07-01T19:30:09-04:00');
    expect(zonedIsoTimestamp(instant, 'Europe/Berlin')).toBe('2026-07-02T01:30:09+02:00');
    expect(zonedIsoTimestamp(instant, 'Asia/Kolkata')).toBe('2026-07-02T05:00:09+05:30');
    expect(zonedIsoTimestamp(new Date('2026-07-02T00:00:00Z'), 'UTC')).toBe('2026-07-02T00:00:00+00:00');
  });
});
