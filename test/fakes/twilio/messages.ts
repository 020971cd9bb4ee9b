import { twilioSignatureOf } from '../../../src/lib/twilio-signature.ts';
import type { TwilioNumbers } from './numbers.ts';
import { page, rfc2822, sid, twilioError, type TwilioRequest, type TwilioRoute } from './server.ts';

/**
 * Twilio's Messages: sending a text from one of the account's SMS-capable numbers, and reading messages back.
 * Twilio then posts the message's status changes to its StatusCallback, and posts messages sent to a number to
 * the number's SmsUrl: the fake builds those posts (`report`, `receive`), signed as Twilio signs them, for the
 * test to deliver to Parley's address.
 */

export interface FakeMessage {
  /** The message as the API answers it, in Twilio's snake_case. */
  resource: Record<string, unknown> & { sid: string; to: string; from: string; body: string; status: string };
  /** Where its status changes go: not part of the resource Twilio answers. */
  statusCallback: string | null;
}

/** A webhook Twilio would post: where to, the form, and its `X-Twilio-Signature`. */
export interface TwilioWebhook {
  url: string;
  form: URLSearchParams;
  signature: string;
}

export interface TwilioMessages {
  messages: Map<string, FakeMessage>;
  /** Numbers Twilio will not text: landlines (error 21614). */
  landlines: Set<string>;
  /** Moves a message to `status` and builds its status callback as Twilio posts it. */
  report(messageSid: string, status: string, errorCode?: number): TwilioWebhook;
  /** Builds the post of a text from `from` to one of the account's numbers, to that number's SmsUrl. */
  receive(message: { from: string; to: string; body: string }): TwilioWebhook;
  /**
   * Builds the post of a WhatsApp message from a customer (`+E164`) to one of the account's numbers enabled as a
   * WhatsApp sender, as Twilio posts it to the sender's webhook: `whatsapp:` addresses, ProfileName and WaId.
   */
  receiveWhatsApp(message: { from: string; to: string; body: string; profileName: string }): TwilioWebhook;
}

const MAX_BODY = 1600;

/**
 * The segments Twilio reports: an approximation by the printable ASCII range (which GSM-7 covers save a few
 * characters). Parley counts segments itself and never reads this.
 */
function segmentsOf(body: string): number {
  const gsm = /^[\n\r\x20-\x7e]*$/.test(body);
  const [single, part] = gsm ? [160, 153] : [70, 67];
  return body.length <= single ? 1 : Math.ceil(body.length / part);
}

export function messageRoutes(accountSid: string, authToken: string, numbers: TwilioNumbers): { routes: TwilioRoute[]; state: TwilioMessages } {
  const base = `/2010-04-01/Accounts/${accountSid}`;
  const signed = (url: string, form: URLSearchParams): TwilioWebhook => ({ url, form, signature: twilioSignatureOf(authToken, url, form) });

  const state: TwilioMessages = {
    messages: new Map(),
    landlines: new Set(),
    report(messageSid, status, errorCode) {
      const message = state.messages.get(messageSid);
      if (!message?.statusCallback) throw new Error(`no message ${messageSid} with a status callback`);
      const { resource } = message;
      resource.status = status;
      resource.date_updated = rfc2822(new Date());
      if (status === 'sent') resource.date_sent = resource.date_updated;
      if (errorCode !== undefined) resource.error_code = errorCode;
      const form = new URLSearchParams({
        ApiVersion: '2010-04-01', AccountSid: accountSid, MessageSid: resource.sid, SmsSid: resource.sid, MessageStatus: status, SmsStatus: status,
        From: resource.from, To: resource.to,
      });
      if (errorCode !== undefined) form.set('ErrorCode', String(errorCode));
      // WhatsApp statuses name the channel, as Twilio's callbacks for WhatsApp messages do.
      if (resource.from.startsWith('whatsapp:')) {
        form.set('ChannelPrefix', 'whatsapp');
        form.set('ChannelToAddress', resource.to.replace(/^whatsapp:/, ''));
      }
      return signed(message.statusCallback, form);
    },
    receiveWhatsApp({ from, to, body, profileName }) {
      const number = [...numbers.incoming.values()].find((held) => held.phone_number === to);
      if (!number || typeof number.sms_url !== 'string') throw new Error(`${to} is not a number of the account with an SmsUrl`);
      const messageSid = sid('SM');
      const form = new URLSearchParams({
        SmsMessageSid: messageSid, NumMedia: '0', ProfileName: profileName, MessageType: 'text', SmsSid: messageSid, WaId: from.replace(/^\+/, ''),
        SmsStatus: 'received', Body: body, To: `whatsapp:${to}`, NumSegments: '1', ReferralNumMedia: '0', MessageSid: messageSid, AccountSid: accountSid,
        From: `whatsapp:${from}`, ApiVersion: '2010-04-01',
      });
      return signed(number.sms_url, form);
    },
    receive({ from, to, body }) {
      const number = [...numbers.incoming.values()].find((held) => held.phone_number === to);
      if (!number || typeof number.sms_url !== 'string') throw new Error(`${to} is not a number of the account with an SmsUrl`);
      const messageSid = sid('SM');
      const form = new URLSearchParams({
        ToCountry: 'US', ToState: '', SmsMessageSid: messageSid, NumMedia: '0', ToCity: '', FromZip: '', SmsSid: messageSid, FromState: '',
        SmsStatus: 'received', FromCity: '', Body: body, FromCountry: 'US', To: to, ToZip: '', NumSegments: String(segmentsOf(body)),
        MessageSid: messageSid, AccountSid: accountSid, From: from, ApiVersion: '2010-04-01',
      });
      return signed(number.sms_url, form);
    },
  };

  const create = (_match: string[], request: TwilioRequest) => {
    const { form } = request;
    if ((form.get('From') ?? '').startsWith('whatsapp:') || (form.get('To') ?? '').startsWith('whatsapp:')) return createWhatsApp(form);
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    const body = form.get('Body') ?? '';
    if (!to) return twilioError(400, 21604, "A 'To' phone number is required.");
    if (!/^\+[1-9]\d{7,14}$/.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (!from) return twilioError(400, 21603, "A 'From' phone number is required.");
    const sender = [...numbers.incoming.values()].find((number) => number.phone_number === from);
    const capabilities = sender?.capabilities as Record<string, boolean> | undefined;
    if (!capabilities?.sms) {
      return twilioError(400, 21606, `The From phone number ${from} is not a valid, SMS-capable inbound phone number or short code for your account.`);
    }
    if (!body && !form.get('MediaUrl')) return twilioError(400, 21602, 'Message body is required.');
    if (body.length > MAX_BODY) return twilioError(400, 21617, 'The concatenated message body exceeds the 1600 character limit.');
    if (state.landlines.has(to)) return twilioError(400, 21614, "'To' number is not a valid mobile number");
    const messageSid = sid('SM');
    const now = rfc2822(new Date());
    const uri = `${base}/Messages/${messageSid}.json`;
    const resource: FakeMessage['resource'] = {
      account_sid: accountSid, api_version: '2010-04-01', body, date_created: now, date_sent: null, date_updated: now, direction: 'outbound-api',
      error_code: null, error_message: null, from, messaging_service_sid: null, num_media: '0', num_segments: String(segmentsOf(body)),
      price: null, price_unit: 'USD', sid: messageSid, status: 'queued', subresource_uris: { media: `${base}/Messages/${messageSid}/Media.json` }, to, uri,
    };
    state.messages.set(messageSid, { resource, statusCallback: form.get('StatusCallback') });
    return { status: 201, body: resource };
  };

  /**
   * A WhatsApp message: both addresses `whatsapp:+E164`, From one of the account's numbers (enabled as a sender),
   * and either a Body or an approved template's ContentSid with ContentVariables (a JSON object of strings).
   */
  const createWhatsApp = (form: URLSearchParams) => {
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    const contentSid = form.get('ContentSid');
    if (!/^whatsapp:\+[1-9]\d{7,14}$/.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (!from.startsWith('whatsapp:') || ![...numbers.incoming.values()].some((number) => number.phone_number === from.slice('whatsapp:'.length))) {
      return twilioError(400, 63007, `Twilio could not find a Channel with the specified From address: ${from}`);
    }
    let body = form.get('Body') ?? '';
    if (contentSid) {
      if (!/^HX[0-9a-f]{32}$/.test(contentSid)) return twilioError(400, 21655, 'The ContentSid is Invalid.');
      try {
        const variables = JSON.parse(form.get('ContentVariables') ?? '{}') as Record<string, unknown>;
        if (typeof variables !== 'object' || variables === null || Object.values(variables).some((value) => typeof value !== 'string')) throw new Error('not strings');
        body = `[template ${contentSid}] ${JSON.stringify(variables)}`;
      } catch {
        return twilioError(400, 21656, 'The ContentVariables Parameter is invalid.');
      }
    }
    if (!body) return twilioError(400, 21619, 'A text message body or media urls must be specified.');
    const messageSid = sid('SM');
    const now = rfc2822(new Date());
    const resource: FakeMessage['resource'] = {
      account_sid: accountSid, api_version: '2010-04-01', body, date_created: now, date_sent: null, date_updated: now, direction: 'outbound-api',
      error_code: null, error_message: null, from, messaging_service_sid: null, num_media: '0', num_segments: '1',
      price: null, price_unit: 'USD', sid: messageSid, status: 'queued', subresource_uris: { media: `${base}/Messages/${messageSid}/Media.json` }, to,
      uri: `${base}/Messages/${messageSid}.json`,
    };
    state.messages.set(messageSid, { resource, statusCallback: form.get('StatusCallback') });
    return { status: 201, body: resource };
  };

  const list = (_match: string[], request: TwilioRequest) => {
    const to = request.query.get('To');
    const from = request.query.get('From');
    const found = [...state.messages.values()].map((message) => message.resource)
      .filter((message) => (!to || message.to === to) && (!from || message.from === from))
      .reverse();
    return page(request.path, 'messages', found, request.query);
  };

  const one = (match: string[], request: TwilioRequest) => {
    const message = state.messages.get(match[0]!);
    return message ? { status: 200, body: message.resource } : twilioError(404, 20404, `The requested resource ${request.path} was not found`);
  };

  return {
    state,
    routes: [
      { method: 'POST', pattern: new RegExp(`^${base}/Messages\\.json$`), handle: create },
      { method: 'GET', pattern: new RegExp(`^${base}/Messages\\.json$`), handle: list },
      { method: 'GET', pattern: new RegExp(`^${base}/Messages/(SM[0-9a-f]{32})\\.json$`), handle: one },
    ],
  };
}
