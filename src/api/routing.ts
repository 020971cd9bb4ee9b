import type { Readable } from 'node:stream';
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Static, TSchema } from '@sinclair/typebox';
import { BadRequestError, ValidationError, type ErrorCode } from '../lib/errors.ts';
import { connectionSignal } from './connection.ts';
import type { ErrorStyle } from './error-table.ts';
import type { AuthContext } from './middleware/auth.ts';
import { bodyReader, type BodyKind } from './middleware/body.ts';
import { verifySignature, type SignatureVerifier } from './middleware/signatures.ts';
import { compileValidator, type Validator } from './validation.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  type?: string;
}

/**
 * Who may call a route: `bearer` (an API key or session token), `public` (anyone), or a carrier or payment
 * provider proving the request is theirs by a signature, checked after the body is read.
 */
export type RouteAuth = 'bearer' | 'public' | SignatureVerifier;

export interface RouteInput<P extends TSchema, Q extends TSchema, B extends TSchema, A extends RouteAuth, Z = undefined> {
  /** What the route's `authorize` returned. */
  authorized: Z;
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
  /** The exact bytes of a `form` or `raw` body. */
  rawBody: Buffer | undefined;
  /** The body as it arrives, on a `stream` route (see `streamed` in middleware/body.ts). */
  bodyStream: Readable | undefined;
  auth: A extends 'bearer' ? AuthContext : undefined;
  /** Aborted when the client goes away before the response is finished. */
  signal: AbortSignal;
  ctx: Koa.Context;
}

/**
 * One route of the API, declared once: the router, the validator and the OpenAPI document all read it.
 * `path` is relative to `/api` and uses OpenAPI's `{param}` syntax.
 */
export interface RouteDefinition<
  P extends TSchema = TSchema,
  Q extends TSchema = TSchema,
  B extends TSchema = TSchema,
  A extends RouteAuth = RouteAuth,
  Z = unknown,
> {
  method: Method;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  auth: A;
  /** The body family of this route's errors (see error-table.ts). */
  errorStyle?: ErrorStyle;
  /**
   * The documented text of this route's 500, answered when its handler throws anything but a domain error
   * (the error itself is logged); `Server Error` when not given.
   */
  failureText?: string;
  params?: P;
  query?: Q;
  body?: B;
  /**
   * A limit of the route's own, besides the one of every route: at most `perMinute` requests a minute per
   * credential, counted in `bucket` (routes that share a bucket share the count, as two spellings of one path do).
   */
  rateLimit?: { perMinute: number; bucket: string };
  /** How the body is read; JSON unless the route says otherwise. A `raw` body has no schema. */
  bodyKind?: BodyKind;
  /**
   * How a body that fails its schema is answered: Laravel's 422 with every field's messages (the default), or
   * `bad_request`, a 400 with the first message alone, as a carrier's API refuses a request (the sandbox
   * carrier's adapter takes its 400s as refusals).
   */
  invalidBody?: 'validation' | 'bad_request';
  responses: Record<number, { description: string; schema?: TSchema; contentType?: string }>;
  /**
   * Domain errors the handler may throw beyond those every route of its kind answers (authentication, body,
   * validation, a missing `{id}` record, rate limit): the document derives their status and body from the error
   * table, e.g. `plan_limit` adds the `{message}` 422.
   */
  errors?: ErrorCode[];
  /**
   * Whether the authenticated caller may use the route at all, asked before the body is read or validated (as
   * Laravel authorizes a request before it validates it): a caller who may not gets the error it throws (a 403)
   * whatever it sent. What it returns reaches the handler as `authorized`.
   */
  authorize?(input: { auth: A extends 'bearer' ? AuthContext : undefined; ctx: Koa.Context }): Promise<Z>;
  handle(input: RouteInput<P, Q, B, A, Z>): Promise<RouteResult> | RouteResult;
}

/** Keeps each route's handler typed by its own schemas while the list holds routes of every shape. */
export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema, A extends RouteAuth, Z = undefined>(
  definition: RouteDefinition<P, Q, B, A, Z>,
): RouteDefinition {
  return definition;
}

export interface RouteMiddleware {
  authenticate: Koa.Middleware;
  rateLimit: Koa.Middleware;
  /** A route's own limit (`RouteDefinition.rateLimit`), counted like `rateLimit`. */
  routeRateLimit(limit: { perMinute: number; bucket: string }): Koa.Middleware;
  /** The cap of JSON, form and raw bodies; uploads declare their own. */
  bodyLimitBytes: number;
}

export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What @koa/router keeps of the routes whose path a request matched. */
interface MatchedLayer {
  methods: string[];
  paramNames: unknown[];
}

/**
 * The routes of a request's path that answer it: a path spelled out in full (`/user/phone-numbers/search`)
 * stands over a template it also fits (`/user/phone-numbers/{id}`), so the template's methods are not the
 * path's. All of them when none is spelled out.
 */
export function answeringLayers(ctx: Koa.Context): MatchedLayer[] {
  const matched = ((ctx as unknown as { matched?: MatchedLayer[] }).matched ?? []).filter((layer) => layer.methods.length > 0);
  const literal = matched.filter((layer) => layer.paramNames.length === 0);
  return literal.length > 0 ? literal : matched;
}

/**
 * The first step of a route whose path has parameters: a request to a path another route spells out in full is
 * that path's, so a method it does not take is a 405 with its own methods in `Allow` (the error handler writes
 * the body), not this template's answer to a parameter that is not one.
 */
const shadowedPath: Koa.Middleware = async (ctx, next) => {
  const layers = answeringLayers(ctx);
  if (layers.some((layer) => layer.paramNames.length === 0) && !layers.some((layer) => layer.methods.includes(ctx.method))) {
    ctx.status = 405;
    ctx.set('Allow', [...new Set(layers.flatMap((layer) => layer.methods))].join(', '));
    return;
  }
  await next();
};

/** A validator whose failures are a 400 with their first message (RouteDefinition.invalidBody). */
function refusingAsBadRequest<S extends TSchema>(validate: Validator<S>): Validator<S> {
  return (data) => {
    try {
      return validate(data);
    } catch (error) {
      if (error instanceof ValidationError) throw new BadRequestError(error.first);
      throw error;
    }
  };
}

/**
 * Registers routes on a Koa router: error style, then authentication, rate limit, authorization, body, signature,
 * validation, handler.
 */
export function mountRoutes(router: Router, routes: RouteDefinition[], middleware: RouteMiddleware): void {
  for (const route of routes) {
    const bodyKind = route.bodyKind ?? 'json';
    if ((bodyKind === 'raw' || (typeof bodyKind === 'object' && bodyKind.kind === 'stream')) && route.body) throw new Error(`${route.method} ${route.path} reads a raw or streamed body, which no schema describes.`);
    if (typeof route.auth === 'object' && !route.auth.headerOnly && bodyKind !== 'form' && bodyKind !== 'raw') {
      throw new Error(`${route.method} ${route.path} checks a signature, which covers the exact body: declare it form or raw.`);
    }
    const validateParams = route.params ? compileValidator(route.params, 'text') : undefined;
    const validateQuery = route.query ? compileValidator(route.query, 'text') : undefined;
    const bodyValidator = route.body ? compileValidator(route.body, bodyKind === 'json' ? 'json' : 'text') : undefined;
    const validateBody = bodyValidator && route.invalidBody === 'bad_request' ? refusingAsBadRequest(bodyValidator) : bodyValidator;
    const chain: Koa.Middleware[] = [
      ...(route.path.includes('{') ? [shadowedPath] : []),
      async (ctx, next) => {
        ctx.state.errorStyle = route.errorStyle ?? 'message';
        await next();
      },
    ];
    if (route.auth === 'bearer') chain.push(middleware.authenticate);
    chain.push(middleware.rateLimit);
    if (route.rateLimit) chain.push(middleware.routeRateLimit(route.rateLimit));
    if (route.authorize) {
      const authorize = route.authorize.bind(route);
      chain.push(async (ctx, next) => {
        ctx.state.authorized = await authorize({ auth: ctx.state.auth as AuthContext, ctx });
        await next();
      });
    }
    if (route.body || route.bodyKind) chain.push(bodyReader(bodyKind, middleware.bodyLimitBytes));
    if (typeof route.auth === 'object') chain.push(verifySignature(route.auth));
    chain.push(async (ctx) => {
      if (route.failureText) ctx.state.failureText = route.failureText;
      // A body left out is an empty object; one sent as JSON `null` (or any other value) is not an object.
      const rawBody: unknown = ctx.request.body === undefined ? {} : ctx.request.body;
      if (route.body && !isPlainObject(rawBody)) throw new BadRequestError('The request body must be a JSON object.');
      const params: unknown = validateParams ? validateParams({ ...ctx.params }) : ctx.params;
      const query: unknown = validateQuery ? validateQuery({ ...ctx.query }) : ctx.query;
      const body: unknown = validateBody ? validateBody(rawBody) : undefined;
      // Made on first use: most handlers finish without listening for the client going away.
      let signal: AbortSignal | undefined;
      const result = await route.handle({
        authorized: ctx.state.authorized,
        params,
        query,
        body,
        rawBody: ctx.state.rawBody as Buffer | undefined,
        bodyStream: ctx.state.bodyStream as Readable | undefined,
        auth: ctx.state.auth as AuthContext,
        get signal() {
          return (signal ??= connectionSignal(ctx));
        },
        ctx,
      });
      ctx.status = result.status ?? 200;
      for (const [name, value] of Object.entries(result.headers ?? {})) ctx.set(name, value);
      if (result.type) ctx.type = result.type;
      ctx.body = result.body;
    });
    const path = koaPath(route.path);
    switch (route.method) {
      case 'GET': router.get(path, ...chain); break;
      case 'POST': router.post(path, ...chain); break;
      case 'PUT': router.put(path, ...chain); break;
      case 'PATCH': router.patch(path, ...chain); break;
      case 'DELETE': router.delete(path, ...chain); break;
    }
  }
}
