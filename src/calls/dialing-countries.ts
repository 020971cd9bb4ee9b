import type { Knex } from 'knex';

/**
 * Where an account may dial: calls (`make_call`, a campaign's leads), transfers and SMS all check the same
 * allow-list, so it sits with the calls engine that every one of those paths reaches. The account sets its own
 * list through its resource (resources/dialing-countries).
 */

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

/** The countries of the numbers the account holds (`active` or `past_due`, the phone-number model's HELD_STATUSES). */
async function numberCountries(knex: Knex, userId: number): Promise<string[]> {
  const rows: { countryCode: string }[] = await knex('phone_numbers').where({ userId }).whereIn('status', ['active', 'past_due']).distinct('countryCode');
  return rows.map((row) => row.countryCode);
}
