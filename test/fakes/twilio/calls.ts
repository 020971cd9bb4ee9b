import { createHmac } from 'node:crypto';
import { page, rfc2822, sid, twilioError, type TwilioRequest, type TwilioRoute } from './server.ts';
import type { TwilioNumbers } from './numbers.ts';

/** A call, in Twilio's snake_case as the API answers it, with what it was asked to do. */
export type FakeCall = Record<string, unknown> & {
  sid: string;
  to: string;
  from: string;
  status: string;
  /** The TwiML it runs when answered, and where its status changes go. */
  twiml: string;
  status_callback: string | null;
  status_callback_event: string[];
  timeout: number;
  /** Answering-machine detection as asked (`Enable`, `DetectMessageEnd`), asynchronous or not, and where its verdict goes. */
  machine_detection: string | null;
  async_amd: string | null;
  async_amd_status_callback: string | null;
  async_amd_status_callback_method: string | null;
  /** Twilio's verdict, once its detection has one. */
  answered_by: string | null;
  /** The charge, negative, in `price_unit`; null until Twilio has priced the completed call. */
  price: string | null;
};

/** A webhook request as Twilio would send it: the URL, the form, and its `X-Twilio-Signature`. */
export interface TwilioWebhook {
  url: string;
  form: URLSearchParams;
  signature: string;
}

export interface TwilioCalls {
  calls: Map<string, FakeCall>;
  /** Calls Twilio has not priced yet after they completed (Twilio: "may not be immediately available"). */
  unpriced: Set<string>;
  /** The callee picks up: `in-progress` from now. */
  answer(callSid: string): FakeCall;
  /** The call ends after `seconds` of talk and is priced per started minute (unless it is kept `unpriced`). */
  complete(callSid: string, seconds: number): FakeCall;
  /** Twilio's asynchronous AMD reaches a verdict (`human`, `machine_end_beep`, …): the request it posts. */
  detect(callSid: string, answeredBy: string): TwilioWebhook;
}

/** What the fake charges a minute of an outbound call, as Twilio does to a US number. */
export const PRICE_PER_MINUTE_USD = 0.014;

/** Twilio's signature of a webhook, computed here on its own so the fake checks Parley's verifier, not itself. */
function signature(authToken: string, url: string, form: URLSearchParams): string {
  const hmac = createHmac('sha1', authToken).update(url);
  for (const [name, value] of [...form].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hmac.update(name + value);
  return hmac.digest('base64');
}

/** Twilio's Calls: placing a call from one of the account's numbers, reading it, and cancelling or ending it. */
export function callRoutes(accountSid: string, authToken: string, numbers: TwilioNumbers): { routes: TwilioRoute[]; state: TwilioCalls } {
  const base = `/2010-04-01/Accounts/${accountSid}`;
  const found = (callSid: string) => {
    const call = state.calls.get(callSid);
    if (!call) throw new Error(`the fake Twilio has no call ${callSid}`);
    return call;
  };
  const complete = (call: FakeCall, seconds: number) => {
    call.status = 'completed';
    call.end_time = rfc2822(new Date());
    call.duration = String(seconds);
    if (!state.unpriced.has(call.sid)) call.price = (-Math.ceil(seconds / 60) * PRICE_PER_MINUTE_USD).toFixed(5);
    return call;
  };
  const state: TwilioCalls = {
    calls: new Map(),
    unpriced: new Set(),
    answer(callSid) {
      const call = found(callSid);
      call.status = 'in-progress';
      call.start_time = rfc2822(new Date());
      return call;
    },
    complete: (callSid, seconds) => complete(found(callSid), seconds),
    detect(callSid, answeredBy) {
      const call = found(callSid);
      if (!call.async_amd_status_callback) throw new Error(`call ${callSid} was placed without asynchronous machine detection`);
      call.answered_by = answeredBy;
      const form = new URLSearchParams({ AccountSid: accountSid, CallSid: callSid, AnsweredBy: answeredBy, MachineDetectionDuration: '3120' });
      return { url: call.async_amd_status_callback, form, signature: signature(authToken, call.async_amd_status_callback, form) };
    },
  };

  const create = (_match: string[], { form }: TwilioRequest) => {
    const to = form.get('To') ?? '';
    const from = form.get('From') ?? '';
    if (!/^\+[1-9]\d{7,14}$/.test(to)) return twilioError(400, 21211, `The 'To' number ${to} is not a valid phone number.`);
    if (![...numbers.incoming.values()].some((number) => number.phone_number === from)) {
      return twilioError(400, 21210, `The source phone number provided, ${from}, is not yet verified for your account. You may only make calls from phone numbers that you've verified or purchased from Twilio.`);
    }
    const twiml = form.get('Twiml');
    if (!twiml && !form.get('Url')) return twilioError(400, 21205, 'Url parameter is required.');
    const machineDetection = form.get('MachineDetection');
    if (machineDetection !== null && !['Enable', 'DetectMessageEnd'].includes(machineDetection)) {
      return twilioError(400, 21234, `Invalid Machine Detection configuration value: ${machineDetection}.`);
    }
    const callSid = sid('CA');
    const now = rfc2822(new Date());
    const call: FakeCall = {
      sid: callSid, account_sid: accountSid, to, from, to_formatted: to, from_formatted: from, status: 'queued', direction: 'outbound-api',
      api_version: '2010-04-01', answered_by: null, caller_name: null, duration: null, price: null, price_unit: 'USD', parent_call_sid: null,
      date_created: now, date_updated: now, start_time: null, end_time: null, phone_number_sid: null, queue_time: '0', trunk_sid: null,
      uri: `${base}/Calls/${callSid}.json`,
      twiml: twiml ?? '', status_callback: form.get('StatusCallback'), status_callback_event: form.getAll('StatusCallbackEvent'),
      timeout: Number(form.get('Timeout') ?? 60),
      machine_detection: machineDetection, async_amd: form.get('AsyncAmd'),
      async_amd_status_callback: form.get('AsyncAmdStatusCallback'), async_amd_status_callback_method: form.get('AsyncAmdStatusCallbackMethod'),
    };
    state.calls.set(callSid, call);
    return { status: 201, body: call };
  };

  const one = (handle: (call: FakeCall, request: TwilioRequest) => { status: number; body?: unknown }) => (match: string[], request: TwilioRequest) => {
    const call = state.calls.get(match[0]!);
    return call ? handle(call, request) : twilioError(404, 20404, `The requested resource ${request.path} was not found`);
  };

  // `canceled` stops a call that has not been answered, `completed` hangs up one that is; each leaves the other alone.
  const update = one((call, { form }) => {
    const status = form.get('Status');
    const ended = ['completed', 'busy', 'no-answer', 'failed', 'canceled'].includes(call.status);
    if (ended && (status || form.get('Twiml') || form.get('Url'))) return twilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');
    if (status === 'canceled' && ['queued', 'ringing'].includes(call.status)) call.status = 'canceled';
    if (status === 'completed' && call.status === 'in-progress') {
      const started = typeof call.start_time === 'string' ? Date.parse(call.start_time) : Date.now();
      complete(call, Math.max(Math.ceil((Date.now() - started) / 1000), 1));
    }
    // New TwiML runs at once on a live call, in place of what it was running (a stream ends, a <Dial> rings).
    const twiml = form.get('Twiml');
    if (twiml) call.twiml = twiml;
    call.date_updated = rfc2822(new Date());
    return { status: 200, body: call };
  });

  // Twilio lists calls newest first, filtered by the number called and the number calling when asked.
  const listed = (query: URLSearchParams) => [...state.calls.values()]
    .filter((call) => (!query.has('To') || call.to === query.get('To')) && (!query.has('From') || call.from === query.get('From')))
    .reverse();

  const callPath = new RegExp(`^${base}/Calls/(CA[0-9a-f]{32})\\.json$`);
  return {
    state,
    routes: [
      { method: 'POST', pattern: new RegExp(`^${base}/Calls\\.json$`), handle: create },
      { method: 'GET', pattern: new RegExp(`^${base}/Calls\\.json$`), handle: (_match, request) => page(request.path, 'calls', listed(request.query), request.query) },
      { method: 'GET', pattern: callPath, handle: one((call) => ({ status: 200, body: call })) },
      { method: 'POST', pattern: callPath, handle: update },
    ],
  };
}
