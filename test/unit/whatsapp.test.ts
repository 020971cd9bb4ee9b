import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { renderTemplate, sessionStatus, templateVariables } from '../../src/resources/whatsapp/session.ts';
import { formatLimit } from '../../src/resources/whatsapp/serialize.ts';
import { readReceiptPayload } from '../../src/webhooks/read-receipt.ts';
import { sha256SignatureHeader } from '../../src/webhooks/signature.ts';

describe('the 24-hour session window', () => {
  const wrote = new Date('2026-12-01T10:00:00.000Z');

  it('is open for 24 hours after the customer\'s last message, with the whole minutes left', () => {
    expect(sessionStatus(wrote, new Date('2026-12-01T10:00:30.000Z'))).toEqual({
      is_open: true, can_send_freeform: true, requires_template: false, message: expect.stringContaining('open'),
      minutes_remaining: 1439, expires_at: '2026-12-02T10:00:00.000Z',
    });
    expect(sessionStatus(wrote, new Date('2026-12-02T09:59:59.000Z')).minutes_remaining).toBe(0);
    expect(sessionStatus(wrote, new Date('2026-12-02T09:59:59.000Z')).is_open).toBe(true);
  });

  it('is closed from the 24th hour on, and when the customer never wrote', () => {
    expect(sessionStatus(wrote, new Date('2026-12-02T10:00:00.000Z'))).toMatchObject({
      is_open: false, can_send_freeform: false, requires_template: true, minutes_remaining: 0, expires_at: '2026-12-02T10:00:00.000Z',
    });
    expect(sessionStatus(null, wrote)).toMatchObject({ is_open: false, requires_template: true, expires_at: null });
  });
});

describe('template placeholders', () => {
  it('lists each placeholder once, in number order, and fills them', () => {
    expect(templateVariables('Hi {{2}}, {{1}} and {{ 2 }} again; {{10}}')).toEqual(['1', '2', '10']);
    expect(templateVariables('No placeholders')).toEqual([]);
    expect(renderTemplate('Hi {{1}}, see you {{2}}', { 1: 'Ada', 2: 'Tuesday' })).toBe('Hi Ada, see you Tuesday');
    expect(renderTemplate('Hi {{1}} {{3}}', { 1: 'Ada' })).toBe('Hi Ada {{3}}');
  });
});

describe('read receipts (W3, §13.3)', () => {
  it('are signed X-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>', () => {
    const body = '{"event":"message_status"}';
    expect(sha256SignatureHeader(body, 'whsec_x')).toBe(`sha256=${createHmac('sha256', 'whsec_x').update(body).digest('hex')}`);
  });

  it('carry every field of the contract, and `test: true` only on a test event', () => {
    const facts = {
      message: { id: 9, fromNumber: '+14155550100', toNumber: '+4915112345678', providerMessageId: 'SM1', status: 'undelivered' as const, errorCode: '63016', errorMessage: 'Carrier error 63016' },
      conversationUuid: 'c0ffee00-0000-4000-8000-000000000000', assistantUuid: 'a0000000-0000-4000-8000-000000000000',
      sender: { id: 3, phoneNumber: '+14155550100', displayName: 'Acme' }, at: new Date('2026-12-01T10:00:00.000Z'), providerTimestamp: null,
    };
    const payload = readReceiptPayload(facts);
    expect(Object.keys(payload)).toEqual([
      'event', 'whatsapp_message_id', 'message_sid', 'meta_message_id', 'conversation_id', 'assistant_id', 'sender', 'to', 'from', 'direction', 'status',
      'error_code', 'error_message', 'error_description', 'timestamp', 'provider_timestamp',
    ]);
    expect(payload).toMatchObject({ event: 'message_status', whatsapp_message_id: '9', direction: 'outbound', status: 'undelivered', error_description: expect.stringContaining('24-hour') });
    expect(readReceiptPayload({ ...facts, test: true }).test).toBe(true);
  });

  it('formats a messaging limit as WhatsApp Manager shows it', () => {
    expect([formatLimit(null), formatLimit(1000), formatLimit(100_000), formatLimit(250)]).toEqual(['Unlimited', '1K/day', '100K/day', '250/day']);
  });
});
