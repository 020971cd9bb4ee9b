import { randomInt } from 'node:crypto';
import { isValidPhoneNumber, parsePhoneNumber, type CountryCode } from 'libphonenumber-js/max';
import { page, rfc2822, sid, twilioError, type TwilioRequest, type TwilioRoute } from './server.ts';

/**
 * Twilio's numbers: AvailablePhoneNumbers (local numbers to buy, per country), IncomingPhoneNumbers (the
 * account's numbers: buy, read, list with filters, update, release) and the Pricing API's number prices.
 */

interface Country {
  name: string;
  /** Area codes (national significant number prefixes) and how many digits follow them. */
  areas: string[];
  digits: number;
  price: string;
  addressRequirements: 'none' | 'any' | 'local' | 'foreign';
  sms: boolean;
}

/** Local numbers and prices of the countries the fake sells in, as Twilio's price list has them. */
const countries: Record<string, Country> = {
  US: { name: 'United States', areas: ['415', '212', '512'], digits: 7, price: '1.15', addressRequirements: 'none', sms: true },
  CA: { name: 'Canada', areas: ['416', '604'], digits: 7, price: '1.15', addressRequirements: 'none', sms: true },
  GB: { name: 'United Kingdom', areas: ['20'], digits: 8, price: '1.15', addressRequirements: 'any', sms: false },
};

/** A number on the account, in Twilio's snake_case as the API answers it. */
export type IncomingNumber = Record<string, unknown> & { sid: string; phone_number: string; friendly_name: string };

export interface TwilioNumbers {
  /** The account's numbers by SID. */
  incoming: Map<string, IncomingNumber>;
  /** Numbers a search offered, still on sale (a bought one leaves; a released one is not sold again here). */
  offered: Map<string, { country: string }>;
  /** Numbers Twilio will not sell although offered (another customer bought them meanwhile). */
  takenElsewhere: Set<string>;
}

function draw(country: Country, iso: string, contains: string): string | undefined {
  const area = country.areas[randomInt(country.areas.length)]!;
  let subscriber = Array.from({ length: country.digits }, () => randomInt(10)).join('');
  if (contains.length > country.digits) return undefined;
  const at = randomInt(country.digits - contains.length + 1);
  subscriber = subscriber.slice(0, at) + contains + subscriber.slice(at + contains.length);
  const number = parsePhoneNumber(area + subscriber, iso as CountryCode).number;
  return isValidPhoneNumber(number) ? number : undefined;
}

function available(phoneNumber: string, iso: string, country: Country) {
  return {
    friendly_name: parsePhoneNumber(phoneNumber).formatNational(),
    phone_number: phoneNumber,
    lata: null, locality: null, rate_center: null, latitude: null, longitude: null, region: null, postal_code: null,
    iso_country: iso,
    address_requirements: country.addressRequirements,
    beta: false,
    // Twilio's wire spelling for this resource.
    capabilities: { voice: true, SMS: country.sms, MMS: country.sms, fax: false },
  };
}

export function numberRoutes(accountSid: string): { routes: TwilioRoute[]; state: TwilioNumbers } {
  const state: TwilioNumbers = { incoming: new Map(), offered: new Map(), takenElsewhere: new Set() };
  const base = `/2010-04-01/Accounts/${accountSid}`;
  const resourceUri = (numberSid: string) => `${base}/IncomingPhoneNumbers/${numberSid}.json`;
  const configurable: Record<string, string> = {
    FriendlyName: 'friendly_name', VoiceUrl: 'voice_url', VoiceMethod: 'voice_method', StatusCallback: 'status_callback',
    StatusCallbackMethod: 'status_callback_method', SmsUrl: 'sms_url', SmsMethod: 'sms_method',
  };
  const configure = (number: IncomingNumber, form: URLSearchParams) => {
    for (const [param, field] of Object.entries(configurable)) if (form.has(param)) number[field] = form.get(param);
    number.date_updated = rfc2822(new Date());
  };

  const search = (match: string[], request: TwilioRequest) => {
    const iso = match[0]!;
    const country = countries[iso];
    if (!country) return twilioError(404, 20404, `The requested resource ${request.path} was not found`);
    const contains = request.query.get('Contains') ?? '';
    // Twilio's letters and wildcards are not sold here: no number matches them.
    if (!/^\d*$/.test(contains)) return page(request.path, 'available_phone_numbers', [], request.query);
    const wanted = Math.min(Number(request.query.get('PageSize') ?? 30) || 30, 30);
    const found = new Set<string>();
    // Some random digits are no valid number (a US exchange cannot start with 0 or 1): draw enough for a page of one too.
    for (let tries = 0; found.size < wanted && tries < Math.max(wanted * 5, 100); tries++) {
      const number = draw(country, iso, contains);
      if (number && ![...state.incoming.values()].some((held) => held.phone_number === number)) found.add(number);
    }
    for (const number of found) state.offered.set(number, { country: iso });
    return page(request.path, 'available_phone_numbers', [...found].map((number) => available(number, iso, country)), request.query);
  };

  const buy = (_match: string[], { form }: TwilioRequest) => {
    const phoneNumber = form.get('PhoneNumber') ?? '';
    if (!/^\+\d{8,15}$/.test(phoneNumber)) return twilioError(400, 21421, 'PhoneNumber is invalid');
    const offer = state.offered.get(phoneNumber);
    if (!offer || state.takenElsewhere.has(phoneNumber)) return twilioError(400, 21422, 'PhoneNumber requested is not available');
    const country = countries[offer.country]!;
    if (country.addressRequirements !== 'none' && !form.get('AddressSid') && !form.get('BundleSid')) {
      return twilioError(400, 21631, 'Phone Number Requires an Address');
    }
    state.offered.delete(phoneNumber);
    const numberSid = sid('PN');
    const now = rfc2822(new Date());
    const number: IncomingNumber = {
      sid: numberSid, account_sid: accountSid, phone_number: phoneNumber, friendly_name: parsePhoneNumber(phoneNumber).formatNational(),
      address_requirements: country.addressRequirements, address_sid: form.get('AddressSid'), bundle_sid: form.get('BundleSid'), api_version: '2010-04-01', beta: false,
      capabilities: { voice: true, sms: country.sms, mms: country.sms, fax: false },
      date_created: now, date_updated: now, emergency_status: 'Inactive', origin: 'twilio', status: 'in-use', trunk_sid: null,
      voice_url: null, voice_method: 'POST', voice_fallback_url: null, voice_fallback_method: 'POST', voice_caller_id_lookup: false, voice_application_sid: null,
      status_callback: null, status_callback_method: 'POST', sms_url: null, sms_method: 'POST', sms_fallback_url: null, sms_fallback_method: 'POST', sms_application_sid: null,
      uri: resourceUri(numberSid),
    };
    configure(number, form);
    number.date_updated = now;
    state.incoming.set(numberSid, number);
    return { status: 201, body: number };
  };

  const list = (_match: string[], request: TwilioRequest) => {
    const phoneNumber = request.query.get('PhoneNumber');
    const friendlyName = request.query.get('FriendlyName');
    const held = [...state.incoming.values()]
      .filter((number) => !phoneNumber || number.phone_number === phoneNumber)
      .filter((number) => !friendlyName || number.friendly_name === friendlyName);
    return page(request.path, 'incoming_phone_numbers', held, request.query);
  };

  const one = (handle: (number: IncomingNumber, request: TwilioRequest) => { status: number; body?: unknown }) => (match: string[], request: TwilioRequest) => {
    const number = state.incoming.get(match[0]!);
    return number ? handle(number, request) : twilioError(404, 20404, `The requested resource ${request.path} was not found`);
  };

  const price = (match: string[], request: TwilioRequest) => {
    const country = countries[match[0]!];
    if (!country) return twilioError(404, 20404, `The requested resource ${request.path} was not found`);
    return {
      status: 200,
      body: {
        country: country.name, iso_country: match[0], price_unit: 'USD', url: `https://pricing.twilio.com${request.path}`,
        phone_number_prices: [
          { number_type: 'local', base_price: country.price, current_price: country.price },
          { number_type: 'toll free', base_price: '2.15', current_price: '2.15' },
        ],
      },
    };
  };

  const numberPath = `^${base}/IncomingPhoneNumbers/(PN[0-9a-f]{32})\\.json$`;
  return {
    state,
    routes: [
      { method: 'GET', pattern: new RegExp(`^${base}/AvailablePhoneNumbers/([A-Z]{2})/Local\\.json$`), handle: search },
      { method: 'POST', pattern: new RegExp(`^${base}/IncomingPhoneNumbers\\.json$`), handle: buy },
      { method: 'GET', pattern: new RegExp(`^${base}/IncomingPhoneNumbers\\.json$`), handle: list },
      { method: 'GET', pattern: new RegExp(numberPath), handle: one((number) => ({ status: 200, body: number })) },
      { method: 'POST', pattern: new RegExp(numberPath), handle: one((number, { form }) => (configure(number, form), { status: 200, body: number })) },
      { method: 'DELETE', pattern: new RegExp(numberPath), handle: one((number) => (state.incoming.delete(number.sid), { status: 204 })) },
      { method: 'GET', pattern: /^\/v1\/PhoneNumbers\/Countries\/([A-Z]{2})$/, handle: price },
    ],
  };
}
