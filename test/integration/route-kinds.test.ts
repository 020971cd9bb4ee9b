import { createHmac } from 'node:crypto';
import http from 'node:http';
import { Type } from '@sinclair/typebox';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/api/app.ts';
import { createRequestGuards } from '../../src/api/guards.ts';
import { streamed } from '../../src/api/middleware/body.ts';
import { stripeSignature, twilioSignature } from '../../src/api/middleware/signatures.ts';
import { defineRoute, type RouteDefinition } from '../../src/api/routing.ts';
import { loadConfig } from '../../src/config.ts';
import type { Database } from '../../src/db/database.ts';
import { createLogger } from '../../src/logger.ts';
import { tokenResolver } from '../../src/resources/auth/tokens.ts';
import { apiRequest, type ApiRequest } from '../support/http.ts';
import { openTestDatabase } from '../support/platform.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';

const authToken = 'twilio-auth-token-for-tests';
const endpointSecret = 'whsec_tests';
// The public URL the carrier was given: the app sits behind a proxy, on a loopback port of its own.
const publicUrl = 'https://voice.example.com';

/** What a carrier sends: the form body and its signature over the public URL and the sorted parameters. */
function twilioRequest(path: string, fields: Record<string, string>, token = authToken): RequestInit {
  const body = new URLSearchParams(fields).toString();
  const signed = Object.keys(fields).sort().reduce((text, name) => text + name + fields[name], `${publicUrl}/api${path}`);
  const signature = createHmac('sha1', token).update(signed).digest('base64');
  return { method: 'POST', body, headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': signature } };
}

function stripeRequest(payload: string, header: string): RequestInit {
  return { method: 'POST', body: payload, headers: { 'content-type': 'application/json', 'stripe-signature': header } };
}

describe('routes that carriers and payment providers call, and the client connection signal', () => {
  let database: Database;
  let server: LoopbackServer;
  let request: ApiRequest;
  // The signals the handlers were given, to look at after the client has gone or been answered.
  const waiting: { signal: AbortSignal; left: Promise<void> }[] = [];
  const answered: AbortSignal[] = [];

  const routes: RouteDefinition[] = [
    defineRoute({
      method: 'POST',
      path: '/test/carrier',
      tag: 'Test',
      summary: 'A Twilio callback',
      auth: twilioSignature({ authToken, publicUrl }),
      bodyKind: 'form',
      body: Type.Object({ CallSid: Type.String(), Digits: Type.Optional(Type.Integer()) }),
      responses: { 200: { description: 'Taken' } },
      handle: ({ body }) => ({ body: { call: body.CallSid, digits: body.Digits ?? null } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/test/payments',
      tag: 'Test',
      summary: 'A Stripe webhook',
      auth: stripeSignature({ secret: endpointSecret }),
      bodyKind: 'raw',
      errorStyle: 'error',
      responses: { 200: { description: 'Taken' } },
      handle: ({ rawBody }) => ({ body: { bytes: rawBody?.length, event: (JSON.parse(rawBody?.toString('utf8') ?? '{}') as { id: string }).id } }),
    }),
    defineRoute({
      method: 'POST',
      path: '/test/stream',
      tag: 'Test',
      summary: 'Counts a streamed body as it arrives',
      auth: 'public',
      bodyKind: streamed({ contentTypes: ['text/csv'], maxBytes: 32 * 1024 }),
      responses: { 200: { description: 'Counted' } },
      async handle({ bodyStream }) {
        let bytes = 0;
        for await (const chunk of bodyStream ?? []) bytes += (chunk as Buffer).length;
        return { body: { bytes } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/test/wait',
      tag: 'Test',
      summary: 'Waits for the client to leave',
      auth: 'public',
      responses: { 200: { description: 'Never sent' } },
      async handle({ signal }) {
        const left = new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
        waiting.push({ signal, left });
        await left;
        return { body: { left: true } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/test/quick',
      tag: 'Test',
      summary: 'Answers at once',
      auth: 'public',
      responses: { 200: { description: 'Done' } },
      handle: ({ signal }) => {
        answered.push(signal);
        return { body: { done: true } };
      },
    }),
  ];

  beforeAll(async () => {
    const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', PUBLIC_URL: publicUrl, BODY_LIMIT: '16kb' });
    database = await openTestDatabase();
    const { app } = createApp({ config, logger: createLogger(config), routes, guards: createRequestGuards({ knex: database.knex, config, resolveToken: (clock) => tokenResolver(database.knex, clock) }) });
    server = await listenOnLoopback(http.createServer(app.callback()));
    request = apiRequest(server.url);
  });
  afterAll(async () => {
    await server.close();
    await database.close();
  });

  const call = (path: string, init: RequestInit) => fetch(`${server.url}/api${path}`, init);

  it('serves a correctly signed Twilio form post, with its fields validated as text', async () => {
    const response = await call('/test/carrier', twilioRequest('/test/carrier', { CallSid: 'CA42', Digits: '7', From: '+15551230000' }));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ call: 'CA42', digits: 7 });
  });

  it('refuses a Twilio post with a forged field, another token or no signature with 403', async () => {
    const forged = twilioRequest('/test/carrier', { CallSid: 'CA42', From: '+15551230000' });
    forged.body = new URLSearchParams({ CallSid: 'CA43', From: '+15551230000' }).toString();
    for (const init of [forged, twilioRequest('/test/carrier', { CallSid: 'CA42' }, 'another-token')]) {
      const response = await call('/test/carrier', init);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: 'Invalid signature.' });
    }
    const unsigned = await request('POST', '/test/carrier', { body: 'CallSid=CA42', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(unsigned.status).toBe(403);
  });

  it('answers 400 when a form route gets another content type', async () => {
    const response = await request('POST', '/test/carrier', { body: { CallSid: 'CA42' } });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ message: 'The request body must be application/x-www-form-urlencoded.' });
  });

  it('serves a correctly signed Stripe webhook with the exact bytes it was signed over', async () => {
    const payload = '{ "id": "evt_1",\n  "note": "Grüße" }';
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpointSecret });
    const response = await call('/test/payments', stripeRequest(payload, header));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ bytes: Buffer.byteLength(payload), event: 'evt_1' });
  });

  it('refuses a forged or stale Stripe webhook with 403 in the route\'s error family', async () => {
    const payload = '{"id":"evt_2"}';
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpointSecret });
    const stale = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpointSecret, timestamp: Math.floor(Date.now() / 1000) - 600 });
    for (const init of [stripeRequest('{"id":"evt_3"}', header), stripeRequest(payload, stale)]) {
      const response = await call('/test/payments', init);
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ error: 'Invalid signature.' });
    }
  });

  it('refuses a raw body over the body limit with 413 before checking its signature', async () => {
    const payload = JSON.stringify({ id: 'evt_big', padding: 'x'.repeat(20 * 1024) });
    const header = Stripe.webhooks.generateTestHeaderString({ payload, secret: endpointSecret });
    const response = await call('/test/payments', stripeRequest(payload, header));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: 'The request body must not be larger than 16 KB.' });
  });

  it('hands a streamed body to the handler as it arrives, under its own cap rather than the body limit', async () => {
    const within = await request('POST', '/test/stream', { body: 'x'.repeat(20 * 1024), headers: { 'content-type': 'text/csv' } });
    expect(within).toMatchObject({ status: 200, body: { bytes: 20 * 1024 } });
    const declared = await request('POST', '/test/stream', { body: 'x'.repeat(40 * 1024), headers: { 'content-type': 'text/csv' } });
    expect(declared).toMatchObject({ status: 413, body: { message: 'The request body must not be larger than 32 KB.' } });
    // Without a declared length, the cap is met while reading.
    const chunks = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let index = 0; index < 5; index++) controller.enqueue(new Uint8Array(10 * 1024).fill(120));
        controller.close();
      },
    });
    const chunked = await call('/test/stream', { method: 'POST', body: chunks, headers: { 'content-type': 'text/csv' }, duplex: 'half' });
    expect(chunked.status).toBe(413);
    expect(await request('POST', '/test/stream', { body: '{}' })).toMatchObject({ status: 400, body: { message: 'The request body must be text/csv.' } });
  });

  it('aborts the handler\'s signal when the client goes away before the answer', async () => {
    const client = new AbortController();
    const pending = fetch(`${server.url}/api/test/wait`, { signal: client.signal }).catch((error: unknown) => error);
    await expect.poll(() => waiting.length).toBe(1);
    const [handler] = waiting;
    expect(handler?.signal.aborted).toBe(false);
    client.abort();
    await handler?.left;
    expect(handler?.signal.aborted).toBe(true);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('leaves the signal alone when the answer was delivered', async () => {
    const response = await request('GET', '/test/quick');
    expect(response.body).toEqual({ done: true });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toHaveLength(1);
    expect(answered[0]?.aborted).toBe(false);
  });
});
