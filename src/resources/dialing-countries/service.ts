import type { Knex } from 'knex';
import { isSupportedCountry } from 'libphonenumber-js/max';
import { ValidationError } from '../../lib/errors.ts';
import { numberCountries } from '../phone-numbers/service.ts';

/** The countries an account may call, text and transfer to, and whether they are the default. */
export interface DialingCountryList {
  countries: string[];
  default: boolean;
}

/**
 * The account's allow-list: the countries it set itself, or by default those of its own numbers, so a stolen key
 * cannot run up calls or messages to premium destinations elsewhere (toll fraud). An account that calls abroad
 * from its home numbers sets its own list.
 */
export async function dialingCountryList(knex: Knex, userId: number): Promise<DialingCountryList> {
  const user = await knex('users').where({ id: userId }).first<{ dialingCountries: string[] | null } | undefined>('dialingCountries');
  if (user?.dialingCountries) return { countries: user.dialingCountries, default: false };
  return { countries: (await numberCountries(knex, userId)).sort(), default: true };
}

/** Which countries the account reaches, for a refusal's text: "the countries of its own phone numbers (US)". */
export function describeDialingCountries(list: DialingCountryList): string {
  const countries = list.countries.join(', ') || 'none';
  return list.default ? `the countries of its own phone numbers (${countries})` : `the countries it allows (${countries})`;
}

/** The countries make_call, SMS and transfers may reach for the account (upper-case ISO 3166-1 alpha-2). */
export async function dialingCountries(knex: Knex, userId: number): Promise<string[]> {
  return (await dialingCountryList(knex, userId)).countries;
}

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
