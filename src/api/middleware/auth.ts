import type Koa from 'koa';
import { UnauthenticatedError } from '../../lib/errors.ts';

/** The kind of credential a bearer token is: an API key, or a session's token. */
export type TokenKind = 'api_key' | 'session';

/** Who is calling, put on `ctx.state.auth` by `authenticate` for the handlers after it. */
export interface AuthContext {
  user: { id: number; name: string; email: string; planId: string };
  tokenId: number;
  tokenKind: TokenKind;
}

export type ResolveToken = (plain: string) => Promise<AuthContext | undefined>;

/** The credential of an `Authorization: Bearer …` header, if the request carries one. */
export function bearerCredential(ctx: Koa.Context): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'))?.[1];
}

/** Bearer authentication by API key or session token; anything missing, unknown, revoked or expired is 401. */
export function authenticate(resolve: ResolveToken): Koa.Middleware {
  return async (ctx, next) => {
    const credential = bearerCredential(ctx);
    const auth = credential ? await resolve(credential) : undefined;
    if (!auth) throw new UnauthenticatedError();
    ctx.state.auth = auth;
    await next();
  };
}
