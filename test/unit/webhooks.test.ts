import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { storedAnswer, STORED_ANSWER_BYTES } from '../../src/webhooks/answer.ts';
import { inboundAnswer, inboundCallPayload } from '../../src/webhooks/inbound.ts';
import { attemptVerdict, DEFAULT_DELIVERY_POLICY, READ_RECEIPT_POLICY, maxAttempts, parseRetryAfter, retryDelay } from '../../src/webhooks/policy.ts';
import { postCallPayload, postCallWebhookWanted } from '../../src/webhooks/post-call.ts';
import { generateSigningSecret, signatureHeader, verifySignature } from '../../src/webhooks/signature.ts';
import { excerpt, type AttemptResult } from '../../src/webhooks/send.ts';

describe('webhook signatures', () => {
  const body = '{"id":1,"status":"completed"}';
  const secret = 'whsec_test';

  it('signs "<t>.<body>" with HMAC-SHA256 under the secret, as t=…,v1=…', () => {
    const expected = createHmac('sha256', secret).update(`1700000000.${body}`).digest('hex');
    expect(signatureHeader(body, [secret], 1_700_000_000)).toBe(`t=1700000000,v1=${expected}`);
  });

  it('carries one v1 per secret during a rotation, the new one first, and each verifies alone', () => {
    const header = signatureHeader(body, ['whsec_new', 'whsec_old'], 1_700_000_000);
    expect(header.split(',').filter((part) => part.startsWith('v1='))).toHaveLength(2);
    expect(verifySignature(header, body, 'whsec_new', 1_700_000_010)).toBe(true);
    expect(verifySignature(header, body, 'whsec_old', 1_700_000_010)).toBe(true);
    expect(verifySignature(header, body, 'whsec_other', 1_700_000_010)).toBe(false);
  });

  it('fails a tampered body, a stale timestamp and a malformed header', () => {
    const header = signatureHeader(body, [secret], 1_700_000_000);
    expect(verifySignature(header, body.replace('completed', 'failed'), secret, 1_700_000_000)).toBe(false);
    expect(verifySignature(header, body, secret, 1_700_000_000 + 301)).toBe(false);
    expect(verifySignature('v1=abc', body, secret, 1_700_000_000)).toBe(false);
    expect(verifySignature('t=1700000000,v1=zz', body, secret, 1_700_000_000)).toBe(false);
  });

  it('makes secrets that start whsec_ and differ', () => {
    const [one, two] = [generateSigningSecret(), generateSigningSecret()];
    expect(one).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/);
    expect(one).not.toBe(two);
  });
});

describe('the delivery policy', () => {
  it('delivers on 2xx, retries on no answer, 5xx, 408 and 429, and ends on any other status', () => {
    const verdict = (status: number | undefined) => attemptVerdict(status);
    expect([200, 201, 204].map(verdict)).toEqual(['delivered', 'delivered', 'delivered']);
    expect([undefined, 500, 502, 503, 408, 429].map(verdict)).toEqual(Array(6).fill('retry'));
    expect([400, 401, 403, 404, 410, 422, 301].map(verdict)).toEqual(Array(7).fill('final'));
  });

  it('retries read receipts (W3) after 30 s, 60 s and 120 s on 5xx and 429 only: a 408 is final, as every 4xx', () => {
    const verdict = (status: number) => attemptVerdict(status, READ_RECEIPT_POLICY.retryRequestTimeout);
    expect([500, 503, 429].map(verdict)).toEqual(['retry', 'retry', 'retry']);
    expect([408, 400, 404].map(verdict)).toEqual(['final', 'final', 'final']);
    expect([1, 2, 3, 4].map((attempt) => retryDelay(READ_RECEIPT_POLICY, attempt))).toEqual([30_000, 60_000, 120_000, undefined]);
  });

  it('waits 30 s, 2 min, 10 min, 1 h and 6 h, then gives up after the sixth attempt', () => {
    const waits = [1, 2, 3, 4, 5, 6].map((attempt) => retryDelay(DEFAULT_DELIVERY_POLICY, attempt));
    expect(waits).toEqual([30_000, 120_000, 600_000, 3_600_000, 21_600_000, undefined]);
    expect(maxAttempts(DEFAULT_DELIVERY_POLICY)).toBe(6);
  });

  it("takes the receiver's Retry-After instead of its own wait, up to the longest it allows, but never past the last attempt", () => {
    const policy = { delaysMs: [1000, 2000], maxRetryAfterMs: 60_000 };
    expect(retryDelay(policy, 1, 5000)).toBe(5000);
    expect(retryDelay(policy, 1, 0)).toBe(0);
    expect(retryDelay(policy, 2, 3_600_000)).toBe(60_000);
    expect(retryDelay(policy, 3, 5000)).toBeUndefined();
  });

  it('reads Retry-After as seconds or as an HTTP date, and ignores anything else', () => {
    const now = Date.parse('2026-11-27T10:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Fri, 27 Nov 2026 10:01:30 GMT', now)).toBe(90_000);
    expect(parseRetryAfter('Fri, 27 Nov 2026 09:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});

describe("what a call keeps of its webhook's answer", () => {
  it('keeps a JSON object as it is, and anything else as status_code and body', () => {
    expect(storedAnswer(200, 'application/json', Buffer.from('{"ok":true,"crm_id":7}'))).toEqual({ ok: true, crm_id: 7 });
    expect(storedAnswer(200, 'application/json', Buffer.from('[1,2]'))).toEqual({ status_code: 200, body: [1, 2] });
    expect(storedAnswer(500, 'text/plain', Buffer.from('Internal error'))).toEqual({ status_code: 500, body: 'Internal error' });
    expect(storedAnswer(200, 'application/json', Buffer.from('{broken'))).toEqual({ status_code: 200, body: '{broken' });
  });

  it('cuts a long answer to its cap', () => {
    const long = storedAnswer(200, 'application/json', Buffer.from(JSON.stringify({ text: 'x'.repeat(STORED_ANSWER_BYTES) })));
    expect(long.status_code).toBe(200);
    expect((long.body as string).length).toBe(STORED_ANSWER_BYTES);
  });

  it('keeps the first kilobyte of an answer in the log, without half a character', () => {
    expect(excerpt(Buffer.from('a'.repeat(2000)))).toHaveLength(1024);
    expect(excerpt(Buffer.from(`${'a'.repeat(1023)}é`))).toBe('a'.repeat(1023));
  });
});

describe('the post-call webhook body', () => {
  const at = new Date('2026-11-27T10:00:00.000Z');
  const later = new Date('2026-11-27T10:02:00.000Z');
  const call = {
    id: 42, status: 'completed', duration: 120, clientPhoneNumber: '+491701234567', assistantPhoneNumber: '+4930123456',
    transcript: 'AI: Hello!\nCustomer: Bye.', variables: { name: 'Ada' }, evaluation: { status: true, summary: 'Booked.' }, createdAt: at, updatedAt: later,
  };

  it('has every field of §13.1 and null lead and campaign for a call outside campaigns', () => {
    expect(postCallPayload({ call, lead: null, campaign: null, recordingUrl: null })).toEqual({
      id: 42,
      customer_phone: '+491701234567',
      assistant_phone: '+4930123456',
      duration: 120,
      status: 'completed',
      extracted_variables: { status: true, summary: 'Booked.' },
      input_variables: { name: 'Ada' },
      transcript: 'AI: Hello!\nCustomer: Bye.',
      recording_url: null,
      created_at: '2026-11-27T10:00:00.000Z',
      finished_at: '2026-11-27T10:02:00.000Z',
      lead: null,
      campaign: null,
    });
  });

  it('puts the campaign both at the top and inside the lead', () => {
    const campaign = {
      id: 3, name: 'Autumn', status: 'running', allowedHoursStartTime: '09:00', allowedHoursEndTime: '17:00', allowedDays: ['monday'],
      maxCallsInParallel: 2, maxRetries: 1, retryInterval: 60, createdAt: at, updatedAt: at,
    };
    const lead = { id: 9, phoneNumber: '+491701234567', variables: { name: 'Ada' }, status: 'completed', createdAt: at, updatedAt: later };
    const payload = postCallPayload({ call: { ...call, evaluation: null }, lead, campaign, recordingUrl: 'https://parley.example/api/recordings/42?x' });
    const campaignObject = {
      id: 3, name: 'Autumn', status: 'running', allowed_hours_start_time: '09:00', allowed_hours_end_time: '17:00', allowed_days: ['monday'],
      max_calls_in_parallel: 2, max_retries: 1, retry_interval: 60, created_at: '2026-11-27T10:00:00.000Z', updated_at: '2026-11-27T10:00:00.000Z',
    };
    expect(payload).toMatchObject({
      extracted_variables: {},
      recording_url: 'https://parley.example/api/recordings/42?x',
      campaign: campaignObject,
      lead: {
        id: 9, phone_number: '+491701234567', variables: { name: 'Ada' }, status: 'completed',
        created_at: '2026-11-27T10:00:00.000Z', updated_at: '2026-11-27T10:02:00.000Z', campaign: campaignObject,
      },
    });
  });

  it('is skipped with send_webhook_only_on_completed for a call that never connected, and only then', () => {
    for (const status of ['failed', 'busy', 'no-answer']) {
      expect(postCallWebhookWanted(status, true)).toBe(false);
      expect(postCallWebhookWanted(status, false)).toBe(true);
    }
    for (const status of ['completed', 'ended', 'ended_by_customer', 'ended_by_assistant']) expect(postCallWebhookWanted(status, true)).toBe(true);
  });
});

describe("the inbound-call webhook's body and answer", () => {
  it('names the call, both numbers and the assistant', () => {
    expect(inboundCallPayload({ callId: 7, userId: 3, from: '+14155550142', to: '+14155550100', assistant: { id: 2, uuid: 'u-1', name: 'Front desk' } })).toEqual({
      event: 'call.inbound', call_id: 7, customer_phone: '+14155550142', assistant_phone: '+14155550100', assistant: { id: 2, uuid: 'u-1', name: 'Front desk' },
    });
  });

  const answered = (status: number, body: string): AttemptResult => ({
    verdict: attemptVerdict(status), statusCode: status, latencyMs: 5, excerpt: body, answer: { contentType: 'application/json', body: Buffer.from(body) },
  });

  it('takes `variables`, or `data.variables`, from a 2xx JSON object; nothing from an empty answer or an object without them', () => {
    expect(inboundAnswer(answered(200, '{"variables":{"customer_name":"Sam","tier":2}}'))).toEqual({ ok: true, variables: { customer_name: 'Sam', tier: 2 } });
    expect(inboundAnswer(answered(200, '{"data":{"variables":{"customer_name":"Sam"}}}'))).toEqual({ ok: true, variables: { customer_name: 'Sam' } });
    expect(inboundAnswer(answered(200, '{"variables":{"a":1},"data":{"variables":{"a":2}}}'))).toEqual({ ok: true, variables: { a: 1 } });
    expect(inboundAnswer(answered(204, ''))).toEqual({ ok: true, variables: {} });
    expect(inboundAnswer(answered(200, '{"ok":true}'))).toEqual({ ok: true, variables: {} });
  });

  it('fails on no answer, another status, text, another JSON value and `variables` that are not an object', () => {
    expect(inboundAnswer({ verdict: 'retry', latencyMs: 2000, excerpt: '', error: 'did not answer within 2 s.' })).toEqual({ ok: false, error: 'did not answer within 2 s.' });
    expect(inboundAnswer(answered(500, '{"variables":{"a":1}}'))).toEqual({ ok: false, error: 'HTTP 500' });
    expect(inboundAnswer(answered(200, 'OK'))).toEqual({ ok: false, error: 'The answer is not JSON.' });
    expect(inboundAnswer(answered(200, '[{"a":1}]'))).toEqual({ ok: false, error: 'The answer is not a JSON object.' });
    expect(inboundAnswer(answered(200, '{"variables":["a"]}'))).toEqual({ ok: false, error: "The answer's `variables` is not an object." });
    expect(inboundAnswer(answered(200, '{"data":{"variables":"a"}}'))).toEqual({ ok: false, error: "The answer's `variables` is not an object." });
  });
});
