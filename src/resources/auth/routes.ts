import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { MessageBody, TooManyAttemptsBody } from '../../api/schemas.ts';
import { LoginBody, LoginResponse, RegisterBody, RegisterResponse } from './schemas.ts';
import { userSummary } from './serialize.ts';
import { login, logout, register, type AuthDeps } from './service.ts';

export function authRoutes(deps: AuthDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/auth/register',
      tag: 'Authentication',
      summary: 'Create an account and get a session token',
      description: 'Open unless registration is disabled (ALLOW_REGISTRATION). The token is a session token (SESSION_TTL).',
      auth: 'public',
      body: RegisterBody,
      responses: {
        201: { description: 'Registered', schema: RegisterResponse },
        403: { description: 'Registration is disabled', schema: MessageBody },
      },
      async handle({ body }) {
        const { user, token } = await register(deps, body);
        return { status: 201, body: { message: 'Registration successful.', user: userSummary(user), token } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/login',
      tag: 'Authentication',
      summary: 'Log in with email and password and get a session token',
      description: 'Repeated failures for one email and client address are answered 429 until the lockout ends.',
      auth: 'public',
      body: LoginBody,
      responses: {
        200: { description: 'Logged in', schema: LoginResponse },
        401: { description: 'Wrong email or password', schema: MessageBody },
        429: { description: 'Too many failed attempts', schema: TooManyAttemptsBody },
      },
      async handle({ body, ctx }) {
        const { user, token, tokenName } = await login(deps, body, ctx.ip);
        return { body: { message: 'Login successful.', user: userSummary(user), token, token_name: tokenName } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/auth/logout',
      tag: 'Authentication',
      summary: 'Revoke the token used for this request',
      auth: 'bearer',
      responses: { 200: { description: 'Logged out', schema: MessageBody } },
      async handle({ auth }) {
        await logout(deps.knex, auth.tokenId);
        return { body: { message: 'Logged out successfully.' } };
      },
    }),
  ];
}
