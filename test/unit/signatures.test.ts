import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import {
  isValidStripeSignature,
  stripeSignature,
  twilioSignature,
  twilioSignatureOf,
  type SignedRequest,
} from '../../src/api/middleware/signatures.ts';

function signedRequest(url: string, headers: Record<string, string>, body: string): SignedRequest {
  const lower = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
  return { url, header: (name) => lower[name.toLowerCase()] ?? '', rawBody: Buffer.from(body) };
}

describe('twilioSignatureOf', () => {
  it('matches the example of Twilio\'s security documentation', () => {
    const params: [string, string][] = [
      ['CallSid', 'CA1234567890ABCDE'], ['Caller', '+12349013030'], ['Digits', '1234'], ['From', '+12349013030'], ['To', '+18005551212'],
    ];
    expect(twilioSignatureOf('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', params)).toBe('0/KCTR6DLpKmkAf8muzZqo1nDgQ=');
  });

  it('sorts parameters by name whatever order they came in', () => {
    const url = 'https://voice.example.com/api/calls';
    // Written out by hand: the URL, then each name and value in name order, no separators.
    const expected = createHmac('sha1', 'token').update(`${url}AccountSidAC1CallStatusringingFrom+15550001`).digest('base64');
    expect(twilioSignatureOf('token', url, [['From', '+15550001'], ['AccountSid', 'AC1'], ['CallStatus', 'ringing']])).toBe(expected);
  });
});

describe('twilioSignature', () => {
  const authToken = 'f3e1b1c2d4a5968778695a4b3c2d1e0f';
  const body = 'CallSid=CA42&From=%2B15551230000&To=%2B15559870000&SpeechResult=hello+there';
  const path = '/api/carriers/twilio/voice?assistant=7';
  // Computed here from the documented recipe, not with the code under test.
  const sign = (url: string, token = authToken) => createHmac('sha1', token)
    .update(`${url}CallSidCA42From+15551230000SpeechResulthello thereTo+15559870000`)
    .digest('base64');

  it('accepts a request signed over the public URL and the sorted form parameters', () => {
    const verifier = twilioSignature({ authToken, publicUrl: 'https://voice.example.com' });
    const signature = sign(`https://voice.example.com${path}`);
    expect(verifier.verify(signedRequest(path, { 'X-Twilio-Signature': signature }, body))).toBe(true);
  });

  it('accepts the URL signed with its default port written out', () => {
    const verifier = twilioSignature({ authToken, publicUrl: 'https://voice.example.com' });
    const signature = sign(`https://voice.example.com:443${path}`);
    expect(verifier.verify(signedRequest(path, { 'X-Twilio-Signature': signature }, body))).toBe(true);
  });

  it('refuses a forged parameter, another path, another token and a missing header', () => {
    const verifier = twilioSignature({ authToken, publicUrl: 'https://voice.example.com' });
    const signature = sign(`https://voice.example.com${path}`);
    const headers = { 'X-Twilio-Signature': signature };
    expect(verifier.verify(signedRequest(path, headers, body.replace('CA42', 'CA43')))).toBe(false);
    expect(verifier.verify(signedRequest(`${path}&admin=1`, headers, body))).toBe(false);
    expect(verifier.verify(signedRequest(path, { 'X-Twilio-Signature': sign(`https://voice.example.com${path}`, 'other') }, body))).toBe(false);
    expect(verifier.verify(signedRequest(path, {}, body))).toBe(false);
  });

  it('does not expose its auth token on the verifier', () => {
    expect(JSON.stringify(twilioSignature({ authToken, publicUrl: 'https://voice.example.com' }))).not.toContain(authToken);
  });
});

describe('isValidStripeSignature', () => {
  const secret = 'whsec_5f2b8c1d9e7a';
  const payload = '{"id":"evt_1","type":"invoice.paid","data":{"object":{"amount_paid":500}}}';
  const now = 1_760_000_000;
  const check = (header: string, body = payload, nowSeconds = now) =>
    isValidStripeSignature({ secret, header, payload: Buffer.from(body), toleranceSeconds: 300, nowSeconds });

  it('accepts the header Stripe\'s own library makes', () => {
    expect(check(Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: now - 10 }))).toBe(true);
  });

  it('accepts a header carrying several v1 signatures when one matches (a secret being rolled)', () => {
    const good = createHmac('sha256', secret).update(`${now}.${payload}`).digest('hex');
    const old = createHmac('sha256', 'whsec_old').update(`${now}.${payload}`).digest('hex');
    expect(check(`t=${now},v1=${old},v1=${good},v0=ignored`)).toBe(true);
  });

  it('refuses a forged body, a stale or future timestamp, another secret and a header without t or v1', () => {
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: now });
    expect(check(header, payload.replace('500', '50000'))).toBe(false);
    expect(check(header, payload, now + 301)).toBe(false);
    expect(check(header, payload, now - 301)).toBe(false);
    expect(check(Stripe.webhooks.generateTestHeaderString({ payload, secret: 'whsec_other', timestamp: now }))).toBe(false);
    expect(check(header.replace(/t=\d+,/, ''))).toBe(false);
    expect(check(`t=${now}`)).toBe(false);
    expect(check('')).toBe(false);
  });
});

describe('stripeSignature', () => {
  it('reads the Stripe-Signature header over the raw body, at the clock it is given', () => {
    const secret = 'whsec_clock';
    const payload = '{"id":"evt_2"}';
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: 1_000_000 });
    const at = (seconds: number) => stripeSignature({ secret, now: () => seconds * 1000 });
    expect(at(1_000_100).verify(signedRequest('/api/payments/stripe', { 'Stripe-Signature': header }, payload))).toBe(true);
    expect(at(1_000_400).verify(signedRequest('/api/payments/stripe', { 'Stripe-Signature': header }, payload))).toBe(false);
  });
});
