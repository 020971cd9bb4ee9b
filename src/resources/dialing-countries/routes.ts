import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { ValidationErrorBody } from '../../api/schemas.ts';
import { dialingCountryList } from '../../calls/dialing-countries.ts';
import { DialingCountries, DialingCountriesBody } from './schemas.ts';
import { setDialingCountries } from './service.ts';

/**
 * The account's dialing allow-list, a Parley extension of the interface: the countries `make_call`, SMS and
 * transfers may reach (by default those of the account's own numbers).
 */
export function dialingCountryRoutes({ knex }: { knex: Knex }): RouteDefinition[] {
  const common = { tag: 'Account', auth: 'bearer' as const };
  const answer = { description: 'The allow-list', schema: Type.Object({ data: DialingCountries }) };
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/dialing-countries',
      summary: 'The countries the account may call, text and transfer to (Parley extension)',
      description: 'By default (`default: true`) the countries of the account\'s own numbers.',
      responses: { 200: answer },
      async handle({ auth }) {
        return { body: { data: await dialingCountryList(knex, auth.user.id) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'PUT',
      path: '/user/dialing-countries',
      summary: 'Set the countries the account may call, text and transfer to (Parley extension)',
      description: 'ISO 3166-1 alpha-2 codes in any case, at most 50, stored upper case without repeats; `null` or `[]` restores the default.',
      body: DialingCountriesBody,
      responses: { 200: answer, 422: { description: 'Validation failed', schema: ValidationErrorBody } },
      async handle({ auth, body }) {
        return { body: { data: await setDialingCountries(knex, auth.user.id, body.countries) } };
      },
    }),
  ];
}
