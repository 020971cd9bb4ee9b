import { timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import { ForbiddenError } from '../../lib/errors.ts';
import { isValidStripeSignature, STRIPE_SIGNATURE_TOLERANCE_SECONDS, stripeSignatureOf } from '../../lib/stripe-signature.ts';
import { twilioSignatureOf } from '../../lib/twilio-signature.ts';
import type { RequestState } from '../state.ts';

export { isValidStripeSignature, stripeSignatureOf, twilioSignatureOf };

/** A request as its sender signed it. */
export interface SignedRequest {
  /** The path and query exactly as requested (`/api/...?...`). */
  url: string;
  /** A request header, `''` when absent. */
  header(name: string): string;
  /** The exact bytes of the body (empty without one). */
  rawBody: Buffer;
}

/**
 * The proof of origin of a route called by a carrier or a payment provider instead of a user: it holds its
 * secret in a closure, so logging a route never prints it.
 */
export interface SignatureVerifier {
  /** Who signs (`twilio`, `stripe`): for logs and the OpenAPI document. */
  scheme: string;
  /**
   * The proof is a header alone (the sandbox carrier's key), not a signature over the body: the route may read
   * its body as JSON, declared with a schema, where a signed body must be read as form or raw bytes.
   */
  headerOnly?: boolean;
  verify(request: SignedRequest): boolean;
}

/** Compares in constant time, so a forger learns nothing from how long a wrong guess took. */
function sameText(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The public base URL as configured, and the same with its default port written out (or left out): Twilio
 * signs the URL in whichever of the two forms it was given, as its own helper libraries allow.
 */
function baseUrlForms(publicUrl: string): string[] {
  const url = new URL(publicUrl);
  if (url.port !== '') return [publicUrl];
  const path = url.pathname.replace(/\/+$/, '');
  const origin = `${url.protocol}//${url.hostname}`;
  return [`${origin}${path}`, `${origin}:${url.protocol === 'https:' ? 443 : 80}${path}`];
}

/**
 * Verifies Twilio's signature over `publicUrl` (how Twilio reaches this server, without `/api`) plus the
 * requested path and query, and the form parameters of the body.
 */
export function twilioSignature(options: { authToken: string; publicUrl: string }): SignatureVerifier {
  const { authToken } = options;
  const bases = baseUrlForms(options.publicUrl);
  return {
    scheme: 'twilio',
    verify(request) {
      const given = request.header('x-twilio-signature');
      if (!given) return false;
      const params = [...new URLSearchParams(request.rawBody.toString('utf8'))];
      return bases.some((base) => sameText(twilioSignatureOf(authToken, `${base}${request.url}`, params), given));
    },
  };
}

/** Verifies Stripe's signature over the raw body (declare the route's body `raw`). */
export function stripeSignature(options: {
  secret: string;
  /** Stripe's own libraries default to five minutes. */
  toleranceSeconds?: number;
  now?: () => number;
}): SignatureVerifier {
  const { secret, toleranceSeconds = STRIPE_SIGNATURE_TOLERANCE_SECONDS, now = Date.now } = options;
  return {
    scheme: 'stripe',
    verify: (request) => isValidStripeSignature({
      secret,
      header: request.header('stripe-signature'),
      payload: request.rawBody,
      toleranceSeconds,
      nowSeconds: Math.floor(now() / 1000),
    }),
  };
}

/** Refuses (403, in the route's error family) a request whose signature the verifier does not accept. */
export function verifySignature(verifier: SignatureVerifier): Koa.Middleware {
  return async (ctx, next) => {
    const rawBody = (ctx.state.rawBody as Buffer | undefined) ?? Buffer.alloc(0);
    if (!verifier.verify({ url: ctx.originalUrl, header: (name) => ctx.get(name), rawBody })) {
      (ctx.state as RequestState).log.warn({ scheme: verifier.scheme, path: ctx.path }, 'refused a request whose signature does not verify');
      throw new ForbiddenError('Invalid signature.');
    }
    await next();
  };
}
