/**
 * The sandbox carrier's offer: local numbers of real area codes in each country it serves, with prices and
 * address rules like a carrier's. Numbers are drawn at random from each area's whole range (hundreds of
 * millions of them), never "the next free one", so parallel tests and users never meet; every number drawn
 * is one `libphonenumber-js` accepts as valid for its country.
 */
import { randomInt } from 'node:crypto';
import { isValidPhoneNumber, parsePhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import type { AddressRequirement, AvailableNumber } from './types.ts';

interface Area {
  /** The national significant number's first digits (an area code). */
  prefix: string;
  /** Digits after the prefix. */
  digits: number;
}

interface CountryOffer {
  areas: Area[];
  monthlyPriceMicros: number;
  addressRequirements: AddressRequirement;
  smsCapable: boolean;
}

const areas = (digits: number, ...prefixes: string[]): Area[] => prefixes.map((prefix) => ({ prefix, digits }));

/** Monthly prices near what carriers charge for a local number in each country (USD). */
const offers: Record<string, CountryOffer> = {
  US: { areas: areas(7, '201', '212', '305', '312', '415', '512', '617', '646', '702', '718', '805', '917'), monthlyPriceMicros: 1_150_000, addressRequirements: 'none', smsCapable: true },
  CA: { areas: areas(7, '416', '604', '514', '403', '613', '902'), monthlyPriceMicros: 1_150_000, addressRequirements: 'none', smsCapable: true },
  GB: { areas: [...areas(8, '20'), ...areas(7, '161', '121', '131', '117')], monthlyPriceMicros: 1_150_000, addressRequirements: 'none', smsCapable: false },
  DE: { areas: [...areas(8, '30', '89', '40'), ...areas(7, '221', '211', '711')], monthlyPriceMicros: 2_250_000, addressRequirements: 'local', smsCapable: false },
  AU: { areas: areas(8, '2', '3', '7', '8'), monthlyPriceMicros: 3_000_000, addressRequirements: 'local', smsCapable: false },
  IL: { areas: areas(7, '2', '3', '4', '8', '9'), monthlyPriceMicros: 5_000_000, addressRequirements: 'local', smsCapable: false },
  PL: { areas: areas(7, '22', '12', '61', '71', '58'), monthlyPriceMicros: 4_000_000, addressRequirements: 'local', smsCapable: false },
  FI: { areas: areas(7, '9'), monthlyPriceMicros: 3_000_000, addressRequirements: 'none', smsCapable: false },
  NL: { areas: areas(7, '20', '10', '30', '70'), monthlyPriceMicros: 1_500_000, addressRequirements: 'local', smsCapable: false },
  DK: { areas: areas(7, '3', '7', '8'), monthlyPriceMicros: 3_000_000, addressRequirements: 'local', smsCapable: false },
  IT: { areas: areas(8, '02', '06', '011', '051'), monthlyPriceMicros: 2_000_000, addressRequirements: 'local', smsCapable: false },
};

/**
 * Four nines in a row: the sandbox refuses to provision such a number, so tests can buy a number the carrier
 * declines (search with `contains=9999`). A random draw never has them.
 */
export const REFUSED_DIGITS = '9999';

function randomDigits(count: number): string {
  let digits = '';
  for (let i = 0; i < count; i++) digits += String(randomInt(10));
  return digits;
}

/** One random candidate of `area`, with `contains` somewhere after the area code. */
function draw(area: Area, contains: string): string | undefined {
  if (contains.length > area.digits) return undefined;
  const at = randomInt(area.digits - contains.length + 1);
  return area.prefix + randomDigits(at) + contains + randomDigits(area.digits - contains.length - at);
}

/** What the offer of a country is for one of its numbers (E.164), if the sandbox offers that country. */
export function offerOf(phoneNumber: string): AvailableNumber | undefined {
  const parsed = parsePhoneNumber(phoneNumber);
  const countryCode = parsed.country;
  const offer = countryCode ? offers[countryCode] : undefined;
  if (!countryCode || !offer || !parsed.isValid()) return undefined;
  return {
    phoneNumber: parsed.number,
    phoneNumberFormatted: parsed.formatNational(),
    countryCode,
    monthlyPriceMicros: offer.monthlyPriceMicros,
    addressRequirements: offer.addressRequirements,
    smsCapable: offer.smsCapable,
  };
}

/**
 * Up to `limit` distinct valid numbers of the country holding `contains`, not among `taken`. Fewer (or none)
 * when the country is not offered or no area fits the digits.
 */
export function drawNumbers(countryCode: string, contains: string, limit: number, taken: (phoneNumber: string) => boolean = () => false): AvailableNumber[] {
  const offer = offers[countryCode];
  if (!offer) return [];
  const found = new Map<string, AvailableNumber>();
  for (let tries = 0; found.size < limit && tries < limit * 50; tries++) {
    const area = offer.areas[randomInt(offer.areas.length)] as Area;
    const national = draw(area, contains);
    if (national === undefined) continue;
    // Four nines are drawn only when asked for; see REFUSED_DIGITS.
    if (!contains.includes(REFUSED_DIGITS) && national.includes(REFUSED_DIGITS)) continue;
    if (!isValidPhoneNumber(national, countryCode as CountryCode)) continue;
    const number = offerOf(parsePhoneNumber(national, countryCode as CountryCode).number);
    if (number && !found.has(number.phoneNumber) && !taken(number.phoneNumber)) found.set(number.phoneNumber, number);
  }
  return [...found.values()];
}
