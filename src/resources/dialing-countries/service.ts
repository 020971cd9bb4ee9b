import type { Knex } from 'knex';
import { isSupportedCountry } from 'libphonenumber-js/max';
import { dialingCountryList, type DialingCountryList } from '../../calls/dialing-countries.ts';
import { ValidationError } from '../../lib/errors.ts';

/**
 * Sets the account's own list: codes upper-cased, each one libphonenumber knows numbers of, repeats dropped.
 * `null` or an empty list restores the default (an empty list would refuse every call, which no account means).
 */
export async function setDialingCountries(knex: Knex, userId: number, countries: string[] | null): Promise<DialingCountryList> {
  const codes = (countries ?? []).map((code) => code.toUpperCase());
  const errors: Record<string, string[]> = {};
  codes.forEach((code, index) => {
    if (!isSupportedCountry(code)) errors[`countries.${index}`] = [`The countries.${index} field is not a country with phone numbers: ${code}.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  const chosen = [...new Set(codes)].sort();
  await knex('users').where({ id: userId }).update({ dialingCountries: chosen.length > 0 ? JSON.stringify(chosen) : null, updatedAt: knex.fn.now() });
  return dialingCountryList(knex, userId);
}
