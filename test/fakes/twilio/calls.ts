import { createHmac } from 'node:crypto';
import type { SandboxCarrier } from '../../../src/simulators/sandbox-carrier/carrier.ts';
import type { SimulatedCall } from '../../../src/simulators/sandbox-carrier/simulated-call.ts';
import { readTwiml } from '../../../src/simulators/sandbox-carrier/twiml.ts';
import type { TransferRequest } from '../../../src/providers/telephony/types.ts';
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
  /**
   * With a network (`placesCalls`): a caller at `from` rings one of the account's numbers, saying `lines` (or
   * the callee's default script) once answered; the call's sid.
   */
  ring(call: { from: string; to: string; lines?: string[] }): string;
  /** With a network: the call's record follows the simulated call's status, answer, verdict and end. */
  follow(simulated: SimulatedCall): void;
}

/** What the fake charges a minute of an outbound call, as Twilio does to a US number. */
export const PRICE_PER_MINUTE_USD = 0.014;

/** Twilio's signature of a webhook, computed here on its own so the fake checks Parley's verifier, not itself. */
function signature(authToken: string, url: string, form: URLSearchParams): string {
  const hmac = createHmac('sha1', authToken).update(url);
  for (const [name, value] of [...form].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) hmac.update(name + value);
  return hmac.digest('base64');
}

const ENDED = ['completed', 'busy', 'no-answer', 'failed', 'canceled'];

const unescape = (text: string) => text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
const attribute = (attributes: string, name: string) => {
  const value = new RegExp(`\\b${name}="([^"]*)"`).exec(attributes)?.[1];
  return value === undefined ? undefined : unescape(value);
};

/** A `<Dial><Number>` of TwiML, as the transfer it asks for; undefined for other TwiML. */
export function readDial(twiml: string): TransferRequest | undefined {
  const dial = /<Dial\b([^>]*)>\s*<Number\b([^>]*)>([^<]+)<\/Number>\s*<\/Dial>/.exec(twiml);
  if (!dial) return undefined;
  const [, dialAttributes, numberAttributes, to] = dial as unknown as [string, string, string, string];
  return {
    to: unescape(to.trim()),
    callerId: attribute(dialAttributes, 'callerId') ?? '',
    whisperUrl: attribute(numberAttributes, 'url'),
    outcomeUrl: attribute(dialAttributes, 'action') ?? '',
    ringTimeoutSeconds: Number(attribute(dialAttributes, 'timeout') ?? 30),
  };
}

/**
 * Twilio's Calls: placing a call from one of the account's numbers, reading it, and cancelling or ending it.
 * Given a `network` (the sandbox carrier's simulator), a placed call is played out there as Twilio would: its
 * TwiML's `<Connect><Stream>` connects the answered call, its status callbacks and answering-machine verdict are
 * posted, an update hangs it up or hands it over to a `<Dial>`, and its record follows it (`follow`). Without
 * one, tests move the call along by hand (`answer`, `complete`, `detect`).
 */
export function callRoutes(accountSid: string, authToken: string, numbers: TwilioNumbers, network?: SandboxCarrier): { routes: TwilioRoute[]; state: TwilioCalls } {
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
    ring({ from, to, lines }) {
      if (!network) throw new Error('the fake Twilio rings numbers only when it places calls');
      const number = [...numbers.incoming.values()].find((held) => held.phone_number === to);
      if (!number) throw new Error(`the fake Twilio's account has no number ${to}`);
      if (typeof number.voice_url !== 'string') throw new Error(`${to} has no voice URL`);
      const callSid = sid('CA');
      const routing = { voiceUrl: number.voice_url, statusCallbackUrl: typeof number.status_callback === 'string' ? number.status_callback : '' };
      state.calls.set(callSid, record(callSid, { from, to, direction: 'inbound', status: 'ringing', phone_number_sid: number.sid }));
      // A number's status callback hears of its calls' end only.
      return network.ring({ from, to, lines, routing }, { sid: callSid, events: [] });
    },
    follow(simulated) {
      const call = state.calls.get(simulated.sid);
      if (!call) return;
      // `initiated` is a status callback's word: the call's record stays queued until it rings.
      if (simulated.status !== 'initiated') call.status = simulated.status;
      call.answered_by = simulated.answeredBy ?? call.answered_by;
      if (simulated.answeredAt && !call.start_time) call.start_time = rfc2822(new Date(simulated.answeredAt));
      if (simulated.endedAt && ENDED.includes(simulated.status)) {
        if (simulated.answeredAt) complete(call, Math.max(Math.ceil((simulated.endedAt - simulated.answeredAt) / 1000), 1));
        else Object.assign(call, { end_time: rfc2822(new Date(simulated.endedAt)), duration: '0' });
      }
      call.date_updated = rfc2822(new Date());
    },
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
    const stream = readTwiml(twiml ?? '');
    if (network && stream.verb !== 'stream') return twilioError(400, 12100, 'The fake Twilio places calls whose Twiml is a <Connect><Stream>.');
    const callSid = sid('CA');
    const call = record(callSid, {
      to, from, status: 'queued', direction: 'outbound-api',
      twiml: twiml ?? '', status_callback: form.get('StatusCallback'), status_callback_event: form.getAll('StatusCallbackEvent'),
      timeout: Number(form.get('Timeout') ?? 60),
      machine_detection: machineDetection, async_amd: form.get('AsyncAmd'),
      async_amd_status_callback: form.get('AsyncAmdStatusCallback'), async_amd_status_callback_method: form.get('AsyncAmdStatusCallbackMethod'),
    });
    state.calls.set(callSid, call);
    if (network && stream.verb === 'stream') {
      const request = { from, to, stream: stream.stream, statusCallbackUrl: call.status_callback ?? '', ringTimeoutSeconds: call.timeout };
      const verdictUrl = call.async_amd === 'true' && machineDetection ? call.async_amd_status_callback ?? undefined : undefined;
      network.place(request, { sid: callSid, events: call.status_callback_event, verdictUrl });
    }
    return { status: 201, body: { ...call } };
  };

  /** A call's record as Twilio answers it, with `fields` over the defaults. */
  function record(callSid: string, fields: Partial<FakeCall> & Pick<FakeCall, 'to' | 'from' | 'status'>): FakeCall {
    const now = rfc2822(new Date());
    return {
      sid: callSid, account_sid: accountSid, to_formatted: fields.to, from_formatted: fields.from,
      api_version: '2010-04-01', answered_by: null, caller_name: null, duration: null, price: null, price_unit: 'USD', parent_call_sid: null,
      date_created: now, date_updated: now, start_time: null, end_time: null, phone_number_sid: null, queue_time: '0', trunk_sid: null,
      uri: `${base}/Calls/${callSid}.json`, twiml: '', status_callback: null, status_callback_event: [], timeout: 60,
      machine_detection: null, async_amd: null, async_amd_status_callback: null, async_amd_status_callback_method: null,
      ...fields,
    };
  }

  const one = (handle: (call: FakeCall, request: TwilioRequest) => { status: number; body?: unknown }) => (match: string[], request: TwilioRequest) => {
    const call = state.calls.get(match[0]!);
    return call ? handle(call, request) : twilioError(404, 20404, `The requested resource ${request.path} was not found`);
  };

  // `canceled` stops a call that has not been answered, `completed` hangs up one that is; each leaves the other alone.
  const update = one((call, { form }) => {
    const status = form.get('Status');
    const ended = ENDED.includes(call.status);
    if (ended && (status || form.get('Twiml') || form.get('Url'))) return twilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');
    if (network) return updateOnNetwork(network, call, form);
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

  /** The network hangs the call up or hands it over; its record follows when it has. */
  const updateOnNetwork = (carrier: SandboxCarrier, call: FakeCall, form: URLSearchParams) => {
    const status = form.get('Status');
    const twiml = form.get('Twiml');
    if ((status === 'canceled' && ['queued', 'ringing'].includes(call.status)) || (status === 'completed' && call.status === 'in-progress')) carrier.end(call.sid);
    if (twiml) {
      const transfer = readDial(twiml);
      if (!transfer) return twilioError(400, 12100, 'The fake Twilio follows only a <Dial><Number> given to a live call.');
      if (!carrier.transfer(call.sid, transfer)) return twilioError(400, 21220, 'Call is not in-progress. Cannot redirect.');
      call.twiml = twiml;
    }
    call.date_updated = rfc2822(new Date());
    return { status: 200, body: { ...call } };
  };

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
