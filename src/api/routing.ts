import type Koa from 'koa';
import type Router from '@koa/router';
import type { Static, TSchema } from '@sinclair/typebox';
import { BadRequestError } from '../lib/errors.ts';
import type { ErrorStyle } from './error-table.ts';
import type { AuthContext } from './middleware/auth.ts';
import { compileValidator } from './validation.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RouteResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  type?: string;
}

export interface RouteInput<P extends TSchema, Q extends TSchema, B extends TSchema, A extends boolean> {
  params: Static<P>;
  query: Static<Q>;
  body: Static<B>;
  auth: A extends true ? AuthContext : undefined;
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
  A extends boolean = boolean,
> {
  method: Method;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  /** Whether a bearer credential is required. */
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
  /** Bodies are JSON unless a route takes uploads. */
  bodyType?: 'json' | 'multipart';
  responses: Record<number, { description: string; schema?: TSchema; contentType?: string }>;
  handle(input: RouteInput<P, Q, B, A>): Promise<RouteResult> | RouteResult;
}

/** Keeps each route's handler typed by its own schemas while the list holds routes of every shape. */
export function defineRoute<P extends TSchema, Q extends TSchema, B extends TSchema, A extends boolean>(
  definition: RouteDefinition<P, Q, B, A>,
): RouteDefinition {
  return definition;
}

export interface RouteMiddleware {
  authenticate: Koa.Middleware;
  rateLimit: Koa.Middleware;
  jsonBody: Koa.Middleware;
  multipartBody?: Koa.Middleware;
}

export function koaPath(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Registers routes on a Koa router: error style, then authentication, rate limit, body parsing, validation, handler. */
export function mountRoutes(router: Router, routes: RouteDefinition[], middleware: RouteMiddleware): void {
  for (const route of routes) {
    const validateParams = route.params ? compileValidator(route.params, 'text') : undefined;
    const validateQuery = route.query ? compileValidator(route.query, 'text') : undefined;
    const validateBody = route.body ? compileValidator(route.body, route.bodyType === 'multipart' ? 'text' : 'json') : undefined;
    const chain: Koa.Middleware[] = [
      async (ctx, next) => {
        ctx.state.errorStyle = route.errorStyle ?? 'message';
        await next();
      },
    ];
    if (route.auth) chain.push(middleware.authenticate);
    chain.push(middleware.rateLimit);
    if (route.body && route.bodyType === 'multipart') {
      if (!middleware.multipartBody) throw new Error(`${route.method} ${route.path} takes uploads but no multipart parser was given.`);
      chain.push(middleware.multipartBody);
    } else if (route.body) {
      chain.push(middleware.jsonBody);
    }
    chain.push(async (ctx) => {
      if (route.failureText) ctx.state.failureText = route.failureText;
      const rawBody: unknown = ctx.request.body ?? {};
      if (route.body && !isPlainObject(rawBody)) throw new BadRequestError('The request body must be a JSON object.');
      const params: unknown = validateParams ? validateParams({ ...ctx.params }) : ctx.params;
      const query: unknown = validateQuery ? validateQuery({ ...ctx.query }) : ctx.query;
      const body: unknown = validateBody ? validateBody(rawBody) : undefined;
      const result = await route.handle({ params, query, body, auth: ctx.state.auth as AuthContext, ctx });
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
