import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import type { AuthContext } from '../../api/middleware/auth.ts';
import { MessageBody } from '../../api/schemas.ts';
import { isTimeZone, isoTimestamp } from '../../lib/time.ts';
import { ValidationError } from '../../lib/errors.ts';
import { issueToken } from '../auth/tokens.ts';
import { issueSessionToken, login, type AuthDeps } from '../auth/service.ts';
import { userSummary } from '../auth/serialize.ts';
import { createUser } from '../users/service.ts';
import {
  WhiteLabelLoginBody, WhiteLabelLoginResponse, WhiteLabelRegisterBody, WhiteLabelRegisterResponse, WhiteLabelTokenBody,
  WhiteLabelTokenResponse, WhiteLabelTransferBody, WhiteLabelTransferResponse, WhiteLabelUserList,
} from './schemas.ts';
import { findPlatformUser, listPlatformUsers, requireWhiteLabelAdmin, transferBalance } from './service.ts';

const TAG = 'White-label';
const FORBIDDEN = { description: 'The caller is not a white-label admin', schema: MessageBody };

/**
 * The routes a white-label admin (a user the operator flags) manages its platform's users with (anchor
 * §3.4–3.5). Every one answers 403 to any other caller, and a user of another platform is never found.
 */
export function whiteLabelRoutes(deps: AuthDeps): RouteDefinition[] {
  const { knex } = deps;
  // Asked before the body is validated: a caller that is not an admin is answered 403 whatever it sent.
  const adminOnly = ({ auth }: { auth: AuthContext }) => requireWhiteLabelAdmin(knex, auth.user.id);
  return [
    defineRoute({
      method: 'POST',
      path: '/white-label/login',
      tag: TAG,
      summary: "Log a user of your platform in with its email and password and get a session token for it",
      description: 'Failures count towards the same lockout as `POST /auth/login`. A user of another platform is answered as a wrong password.',
      auth: 'bearer',
      body: WhiteLabelLoginBody,
      errors: ['forbidden', 'rate_limited'],
      responses: {
        200: { description: 'Logged in', schema: WhiteLabelLoginResponse },
        401: { description: 'Wrong email or password, or not a user of your platform', schema: MessageBody },
        403: FORBIDDEN,
      },
      authorize: adminOnly,
      async handle({ authorized: admin, body, ctx }) {
        const { user, token, tokenName } = await login(deps, body, ctx.ip, admin.id);
        return { body: { message: 'Login successful.', user: userSummary(user), token, token_name: tokenName } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/white-label/token',
      tag: TAG,
      summary: 'Create an API key for a user of your platform, without its password',
      description: "The token is an API key of the user, named `token_name`: it shows in the user's `GET /user/api-keys` and lasts until deleted.",
      auth: 'bearer',
      body: WhiteLabelTokenBody,
      errors: ['forbidden', 'not_found'],
      responses: {
        200: { description: 'Created', schema: WhiteLabelTokenResponse },
        403: FORBIDDEN,
        404: { description: 'No such user on your platform', schema: MessageBody },
      },
      authorize: adminOnly,
      async handle({ authorized: admin, body }) {
        const user = await findPlatformUser(knex, admin.id, body);
        const tokenName = body.token_name ?? 'api-token';
        const { token } = await issueToken(knex, { userId: user.id, kind: 'api_key', name: tokenName });
        return { body: { message: 'Token created successfully.', user: userSummary(user), token, token_name: tokenName } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/white-label/register',
      tag: TAG,
      summary: 'Create a user on your platform and get a session token for it',
      description: 'Emails are unique across the whole installation, as they are the login. The user starts with an empty balance; move minutes to it with `POST /white-label/transfer`.',
      auth: 'bearer',
      body: WhiteLabelRegisterBody,
      errors: ['forbidden'],
      responses: {
        200: { description: 'Registered', schema: WhiteLabelRegisterResponse },
        403: FORBIDDEN,
      },
      authorize: adminOnly,
      async handle({ authorized: admin, body }) {
        const timezone = body.timezone ?? 'Europe/Bucharest';
        if (!isTimeZone(timezone)) throw ValidationError.of('timezone', 'The timezone field must be a valid timezone.');
        const user = await createUser(knex, { name: body.name, email: body.email, password: body.password, timezone, whiteLabelOwnerId: admin.id });
        const { token } = await issueSessionToken(deps, user.id, 'api-token');
        return { body: { message: 'Registration successful.', user: userSummary(user), token } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/white-label/users',
      tag: TAG,
      summary: 'List the users of your platform with their balances',
      auth: 'bearer',
      errors: ['forbidden'],
      responses: {
        200: { description: 'The users, oldest first', schema: WhiteLabelUserList },
        403: FORBIDDEN,
      },
      authorize: adminOnly,
      async handle({ authorized: admin }) {
        const users = await listPlatformUsers(knex, admin);
        return {
          body: {
            data: users.map(({ user, minutes, credits }) => ({
              id: user.id, name: user.name, email: user.email, minutes_balance: minutes, credits_balance: credits, created_at: isoTimestamp(user.createdAt),
            })),
          },
        };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/white-label/transfer',
      tag: TAG,
      summary: 'Move minutes or chat credits between you and a user of your platform',
      description: "Minutes are counted at your plan's price per minute and 9 chat credits make a minute; both sides move the same "
        + 'amount of the one balance, one ledger entry each, at once. A balance never goes below zero: a transfer it does not cover is refused with 422.',
      auth: 'bearer',
      body: WhiteLabelTransferBody,
      errors: ['forbidden', 'not_found'],
      responses: {
        200: { description: 'Transferred', schema: WhiteLabelTransferResponse },
        403: FORBIDDEN,
        404: { description: 'No such user on your platform', schema: MessageBody },
      },
      authorize: adminOnly,
      async handle({ authorized: admin, body }) {
        const user = await findPlatformUser(knex, admin.id, body);
        const done = await transferBalance(knex, admin, { user, unit: body.transfer_type, operation: body.operation, amount: body.amount });
        return {
          body: {
            message: 'Transfer completed successfully.',
            transfer: { type: body.transfer_type, operation: body.operation, amount: body.amount },
            user: { id: user.id, email: user.email, name: user.name, minutes_balance: done.user.minutes, credits_balance: done.user.credits },
            your_balance: { minutes: done.adminMinutes },
          },
        };
      },
    }),
  ];
}
