import { Type, type Static } from '@sinclair/typebox';
import { orNull } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

/** The most countries an account may list: a list longer than this is the whole world, which the guard is against. */
export const MAX_DIALING_COUNTRIES = 50;

const CountryCode = Type.String({
  pattern: '^[A-Za-z]{2}$',
  [MESSAGES]: { pattern: 'The :attribute field must be a two-letter country code (ISO 3166-1 alpha-2).' },
});

export const DialingCountriesBody = Type.Object({
  countries: orNull(Type.Array(CountryCode, { maxItems: MAX_DIALING_COUNTRIES, description: 'ISO 3166-1 alpha-2 codes, any case; `null` or `[]` restores the default.' })),
});
export type DialingCountriesBody = Static<typeof DialingCountriesBody>;

export const DialingCountries = Type.Object({
  countries: Type.Array(Type.String({ examples: ['US'] }), { description: 'The countries calls, messages and transfers may go to, upper case, sorted.' }),
  default: Type.Boolean({ description: "True when the list is the default: the countries of the account's own numbers." }),
});
