import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { profile } from './service.ts';

const Profile = Type.Object({
  name: Type.String(),
  email: Type.String(),
  total_balance: Type.Number({ description: 'Current balance in USD: the sum of the ledger entries.', examples: [125.5] }),
});

export function userRoutes({ knex }: { knex: Knex }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user/me',
      tag: 'Account',
      summary: 'The caller\'s profile and balance',
      auth: 'bearer',
      responses: { 200: { description: 'The profile', schema: Profile } },
      async handle({ auth }) {
        const { name, email, totalBalanceUsd } = await profile(knex, auth.user.id);
        return { body: { name, email, total_balance: totalBalanceUsd } };
      },
    }),
  ];
}
