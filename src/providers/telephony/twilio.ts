import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import twilio from 'twilio';
import type { RequestOptions } from 'twilio/lib/base/RequestClient.js';
import type { TelephonyConfig } from '../../config/telephony.ts';
import { RejectedError } from '../../lib/errors.ts';
import { parseUsd } from '../../lib/money.ts';
import { callbackPaths, callbackRouting } from './routing.ts';
import { twilioCalls } from './twilio-calls.ts';
import { carrierError, restError } from './twilio-errors.ts';
import type { AddressRequirement, AvailableNumber, CarrierMessages, NumberRouting, TelephonyProvider } from './types.ts';

export type TwilioSettings = Extract<TelephonyConfig, { provider: 'twilio' }>;

/** Where Twilio sends a number's calls, their progress and its messages: Parley's callback routes. */
export const twilioCallbackPaths = callbackPaths('twilio');

/** A number's routing as IncomingPhoneNumbers' parameters. */
function numberUrls(routing: NumberRouting) {
  return {
    voiceUrl: routing.voiceUrl,
    voiceMethod: 'POST',
    statusCallback: routing.statusCallbackUrl,
    statusCallbackMethod: 'POST',
    smsUrl: routing.smsUrl,
    smsMethod: 'POST',
  };
}

const PRICE_TTL_MS = 60 * 60 * 1000;

/**
 * Twilio's REST client for the account. With `apiBase` every request goes there instead of Twilio's hosts
 * (api.twilio.com, pricing.twilio.com...), path and query unchanged: the fake in tests, or an egress proxy.
 */
export function createTwilioClient(settings: TwilioSettings): twilio.Twilio {
  // Twilio answers 429 when an account sends too fast; the client waits and asks again.
  const requests = { autoRetry: true, maxRetries: 3, timeout: 15_000 };
  return twilio(settings.accountSid, settings.authToken, {
    ...requests,
    httpClient: settings.apiBase ? new RebasedRequestClient(settings.apiBase, requests) : undefined,
  });
}

class RebasedRequestClient extends twilio.RequestClient {
  private readonly base: string;
  constructor(base: string, options: ConstructorParameters<typeof twilio.RequestClient>[0]) {
    super(options);
    this.base = base;
  }

  override request<TData>(opts: RequestOptions<TData>) {
    const target = new URL(opts.uri);
    return super.request<TData>({ ...opts, uri: `${this.base}${target.pathname}${target.search}` });
  }
}

/** Parley shows the contract's four address rules; Twilio's `any` (an address anywhere) reads as the nearest. */
function addressRequirement(twilioValue: string | undefined): AddressRequirement {
  if (twilioValue === 'local' || twilioValue === 'foreign') return twilioValue;
  return twilioValue === 'any' ? 'local' : 'none';
}

/** Twilio has sent capabilities both as `SMS` and as `sms`. */
function smsCapable(capabilities: Record<string, unknown> | undefined): boolean {
  return Object.entries(capabilities ?? {}).some(([name, value]) => name.toLowerCase() === 'sms' && value === true);
}

/**
 * Numbers from Twilio's inventory: local numbers of a country, priced from Twilio's Pricing API, bought
 * onto the account with their voice, status and messaging URLs pointing at Parley's callback routes. The
 * purchase's key is the number's FriendlyName at Twilio, so a provisioning asked again (a retried activity
 * whose first answer was lost) finds the number it bought instead of buying twice.
 */
export function createTwilioTelephony(options: { settings: TwilioSettings; publicUrl: string; client?: twilio.Twilio }): TelephonyProvider {
  const client = options.client ?? createTwilioClient(options.settings);
  const parley = callbackRouting(options.publicUrl, 'twilio');
  const prices = new Map<string, { micros: number; until: number }>();

  async function monthlyPriceMicros(countryCode: string): Promise<number> {
    const known = prices.get(countryCode);
    if (known && known.until > Date.now()) return known.micros;
    const country = await client.pricing.v1.phoneNumbers.countries(countryCode).fetch();
    const local = country.phoneNumberPrices.find((price) => price.numberType === 'local');
    const micros = local ? parseUsd(String(local.currentPrice ?? local.basePrice)) : undefined;
    if (micros === undefined || country.priceUnit?.toUpperCase() !== 'USD') {
      throw new Error(`Twilio gives no USD price for local numbers in ${countryCode} (${local ? `${String(local.currentPrice)} ${country.priceUnit}` : 'none listed'}).`);
    }
    prices.set(countryCode, { micros, until: Date.now() + PRICE_TTL_MS });
    return micros;
  }

  async function configureNumber(providerNumberId: string, routing: NumberRouting): Promise<void> {
    try {
      await client.incomingPhoneNumbers(providerNumberId).update(numberUrls(routing));
    } catch (error) {
      throw carrierError(error, `configure ${providerNumberId}`);
    }
  }

  return {
    name: 'twilio',
    configureNumber,

    async searchNumbers({ countryCode, contains, limit }) {
      // Twilio's pattern needs two characters at least: one digit is matched here, on a larger page.
      const pattern = contains && contains.length >= 2 ? contains : undefined;
      let found;
      try {
        found = await client.availablePhoneNumbers(countryCode).local.list({ contains: pattern, voiceEnabled: true, limit: pattern || !contains ? limit : 50 });
      } catch (error) {
        // A country Twilio has no local numbers in is a 404: nothing offered.
        if (restError(error)?.status === 404) return [];
        throw error;
      }
      const matching = found.filter((number) => !contains || number.phoneNumber.slice(1).includes(contains)).slice(0, limit);
      if (matching.length === 0) return [];
      const monthly = await monthlyPriceMicros(countryCode);
      return matching.map((number): AvailableNumber => ({
        phoneNumber: number.phoneNumber,
        phoneNumberFormatted: parsePhoneNumberFromString(number.phoneNumber)?.formatNational() ?? number.friendlyName,
        countryCode: number.isoCountry,
        monthlyPriceMicros: monthly,
        addressRequirements: addressRequirement(number.addressRequirements),
        smsCapable: smsCapable(number.capabilities as unknown as Record<string, unknown>),
      }));
    },

    async provisionNumber({ phoneNumber, idempotencyKey }) {
      const [held] = await client.incomingPhoneNumbers.list({ phoneNumber, limit: 1 });
      if (held) {
        if (held.friendlyName !== idempotencyKey) throw new RejectedError(`${phoneNumber} is already on the Twilio account, for "${held.friendlyName}".`);
        // Bought by this purchase before; its URLs are set again in case Parley's address changed since.
        await configureNumber(held.sid, parley);
        return { providerNumberId: held.sid };
      }
      try {
        const bought = await client.incomingPhoneNumbers.create({ phoneNumber, friendlyName: idempotencyKey, ...numberUrls(parley) });
        return { providerNumberId: bought.sid };
      } catch (error) {
        throw carrierError(error, `provision ${phoneNumber}`);
      }
    },

    async releaseNumber(providerNumberId) {
      try {
        await client.incomingPhoneNumbers(providerNumberId).remove();
      } catch (error) {
        if (restError(error)?.status !== 404) throw error;
      }
    },

    callbackToken: () => options.settings.authToken,
    calls: twilioCalls(client),
    messages: twilioMessages(client),
  };
}

/**
 * Text messages through Twilio's Messages API, from one of the account's numbers; Twilio posts each change of
 * the message's status to the callback given.
 */
function twilioMessages(client: twilio.Twilio): CarrierMessages {
  return {
    async sendSms(request) {
      try {
        const message = await client.messages.create({
          from: request.from,
          to: request.to,
          body: request.body,
          statusCallback: request.statusCallbackUrl,
        });
        return { providerMessageId: message.sid, status: message.status };
      } catch (error) {
        throw carrierError(error, `send a message to ${request.to}`);
      }
    },
    // Twilio's WhatsApp addresses are the numbers prefixed `whatsapp:`; an approved template goes as its Content
    // SID with the variables as a JSON object (https://www.twilio.com/docs/whatsapp/tutorial/send-whatsapp-notification-messages-templates).
    async sendWhatsApp(request) {
      try {
        const message = await client.messages.create({
          from: `whatsapp:${request.from}`,
          to: `whatsapp:${request.to}`,
          ...(request.template
            ? { contentSid: request.template.contentSid, contentVariables: JSON.stringify(request.template.variables) }
            : { body: request.body }),
          statusCallback: request.statusCallbackUrl,
        });
        return { providerMessageId: message.sid, status: message.status };
      } catch (error) {
        throw carrierError(error, `send a WhatsApp message to ${request.to}`);
      }
    },
  };
}
