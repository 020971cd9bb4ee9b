import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import twilio from 'twilio';
import type { RequestOptions } from 'twilio/lib/base/RequestClient.js';
import type { TelephonyConfig } from '../../config/telephony.ts';
import { RejectedError } from '../../lib/errors.ts';
import { parseUsd } from '../../lib/money.ts';
import { callbackPaths, callbackRouting } from './routing.ts';
import type { AddressRequirement, AvailableNumber, CallRequest, CarrierCalls, CarrierMessages, DialAttempt, NumberRouting, TelephonyProvider, TransferRequest, WarmTransferRequest } from './types.ts';

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

/** A Twilio error answer: the HTTP status and Twilio's own error code (https://www.twilio.com/docs/errors). */
function restError(error: unknown): { status: number; code?: number; message: string } | undefined {
  return error instanceof twilio.RestException ? { status: error.status, code: error.code, message: error.message } : undefined;
}

/**
 * A 4xx about the request itself (the number is taken, needs an address, is not valid) will not change when
 * asked again; credentials, rate limits and Twilio's own failures might, and stay errors to retry.
 */
function carrierError(error: unknown, what: string): Error {
  const answer = restError(error);
  if (answer && answer.status >= 400 && answer.status < 500 && ![401, 403, 408, 429].includes(answer.status)) {
    return new RejectedError(`Twilio would not ${what}: ${answer.message}${answer.code ? ` (error ${answer.code})` : ''}.`);
  }
  return error instanceof Error ? error : new Error(String(error));
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
 * The TwiML a caller waits for a supervisor with: alone in the conference `room`, which does not start with
 * them, hearing `holdMusicUrl` in a loop (Twilio's `waitUrl`; an empty one is silence). Parley moves the caller
 * out of it (a call update) to be connected or to hear why not, so leaving it ends nothing.
 */
export function holdTwiml(room: string, holdMusicUrl: string | undefined): string {
  const twiml = new twilio.twiml.VoiceResponse();
  twiml.dial().conference({
    waitUrl: holdMusicUrl ?? '', waitMethod: 'GET', startConferenceOnEnter: false, endConferenceOnExit: false, beep: 'false',
  }, room);
  return twiml.toString();
}

/** Every status change Twilio can call back with, so the call's workflow follows it from dial to hang-up. */
const STATUS_EVENTS = ['initiated', 'ringing', 'answered', 'completed'];

/** Twilio dates its calls to the second, by its own clock: a call of the attempt may read this much earlier. */
const CLOCK_ALLOWANCE_MS = 2000;

/**
 * Twilio's Calls API takes no idempotency key, so a retried dial looks for the call an earlier try created:
 * one from the same number to the same callee, created since the attempt began. Filtered by To and From at
 * Twilio and by `date_created` here: Twilio's StartTime filter would miss a call still queued, which has no
 * start time yet. The oldest such call is the attempt's.
 */
async function callOfAttempt(client: twilio.Twilio, request: CallRequest, attempt: DialAttempt): Promise<string | undefined> {
  const since = attempt.since.getTime() - CLOCK_ALLOWANCE_MS;
  const recent = await client.calls.list({ to: request.to, from: request.from, limit: 20 });
  const ofAttempt = recent.filter((call) => call.dateCreated && call.dateCreated.getTime() >= since)
    .sort((a, b) => a.dateCreated.getTime() - b.dateCreated.getTime());
  return ofAttempt[0]?.sid;
}

/**
 * Calls through Twilio's Calls API: the answered call is connected by `<Connect><Stream>` to the media
 * gateway, the stream's parameters riding along as `<Parameter>`s, and each status change is posted to Parley.
 * With a verdict URL, Twilio's asynchronous answering-machine detection runs beside the stream (the call is
 * connected at once) and posts its AnsweredBy there; `DetectMessageEnd` waits for a machine's greeting to end,
 * so its verdict also says the box is ready for a message.
 * https://www.twilio.com/docs/voice/answering-machine-detection
 */
function twilioCalls(client: twilio.Twilio): CarrierCalls {
  return {
    async placeCall(request: CallRequest, attempt: DialAttempt) {
      const earlier = attempt.retried ? await callOfAttempt(client, request, attempt) : undefined;
      if (earlier) return { providerCallId: earlier };
      const twiml = new twilio.twiml.VoiceResponse();
      const stream = twiml.connect().stream({ url: request.stream.url });
      for (const [name, value] of Object.entries(request.stream.parameters)) stream.parameter({ name, value });
      try {
        const call = await client.calls.create({
          to: request.to,
          from: request.from,
          twiml: twiml.toString(),
          timeout: request.ringTimeoutSeconds,
          statusCallback: request.statusCallbackUrl,
          statusCallbackMethod: 'POST',
          statusCallbackEvent: STATUS_EVENTS,
          ...(request.answeredByCallbackUrl
            ? { machineDetection: 'DetectMessageEnd', asyncAmd: 'true', asyncAmdStatusCallback: request.answeredByCallbackUrl, asyncAmdStatusCallbackMethod: 'POST' }
            : {}),
        });
        return { providerCallId: call.sid };
      } catch (error) {
        throw carrierError(error, `call ${request.to}`);
      }
    },

    async endCall(providerCallId) {
      // Twilio cancels a call that rings and completes one that is up; each leaves the other kind alone.
      let status: string;
      try {
        status = (await client.calls(providerCallId).fetch()).status;
      } catch (error) {
        if (restError(error)?.status === 404) return;
        throw error;
      }
      if (status === 'queued' || status === 'ringing') await client.calls(providerCallId).update({ status: 'canceled' });
      else if (status === 'in-progress') await client.calls(providerCallId).update({ status: 'completed' });
    },

    /**
     * Replaces the live call's TwiML with a `<Dial>` of the number: Twilio ends the `<Connect><Stream>` (the
     * media session), rings `to`, plays the whisper TwiML to whoever answers, bridges the caller, and posts
     * the outcome to the `<Dial action>`.
     */
    async transferCall(providerCallId: string, request: TransferRequest) {
      const twiml = new twilio.twiml.VoiceResponse();
      const dial = twiml.dial({ action: request.outcomeUrl, method: 'POST', callerId: request.callerId, timeout: request.ringTimeoutSeconds });
      dial.number(request.whisperUrl ? { url: request.whisperUrl, method: 'POST' } : {}, request.to);
      try {
        await client.calls(providerCallId).update({ twiml: twiml.toString() });
      } catch (error) {
        throw carrierError(error, `transfer the call to ${request.to}`);
      }
    },

    /**
     * Calls the supervisor first, with the briefing's TwiML and the status callback (a number Twilio will not
     * call leaves the caller on the line with the assistant, who is told); then replaces the caller's TwiML with
     * the hold in the room, which ends its stream. A caller gone meanwhile cancels the supervisor's call.
     */
    async warmTransfer(providerCallId: string, request: WarmTransferRequest) {
      let supervisorCallId: string;
      try {
        const call = await client.calls.create({
          to: request.to, from: request.callerId, twiml: request.supervisorTwiml, timeout: request.ringTimeoutSeconds,
          statusCallback: request.supervisorStatusUrl, statusCallbackMethod: 'POST',
        });
        supervisorCallId = call.sid;
      } catch (error) {
        throw carrierError(error, `call the supervisor at ${request.to}`);
      }
      try {
        await client.calls(providerCallId).update({ twiml: holdTwiml(request.room, request.holdMusicUrl) });
      } catch (error) {
        await client.calls(supervisorCallId).update({ status: 'canceled' }).catch(() => undefined);
        throw carrierError(error, 'put the call on hold');
      }
      return { supervisorCallId };
    },

    async updateCall(providerCallId: string, twiml: string) {
      try {
        await client.calls(providerCallId).update({ twiml });
      } catch (error) {
        throw carrierError(error, `update the call ${providerCallId}`);
      }
    },

    // Twilio fills `price` (negative: a charge) some time after the call completes.
    async callPrice(providerCallId) {
      const call = await client.calls(providerCallId).fetch();
      if (call.price === null || call.price === undefined || call.price === '') return undefined;
      if (call.priceUnit?.toUpperCase() !== 'USD') throw new RejectedError(`Twilio priced call ${providerCallId} in ${call.priceUnit}, not USD.`);
      const micros = parseUsd(call.price);
      if (micros === undefined) throw new RejectedError(`Twilio priced call ${providerCallId} as "${call.price}", which is not an amount.`);
      return Math.abs(micros);
    },
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
