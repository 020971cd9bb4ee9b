import { createHash } from 'node:crypto';
import { pause } from '../../lib/abort.ts';
import type { Logger } from '../../logger.ts';
import { callbackRouting } from '../../providers/telephony/routing.ts';
import type { CallRequest, TransferRequest, TwimlWarmTransferRequest } from '../../providers/telephony/types.ts';
import { calleeFor, DEFAULT_SCRIPT, farEndTurn, timingsAt, VOICEMAIL_GREETING, type CalleeKind, type CalleeTimings } from './callees.ts';
import { Line } from './line.ts';
import { newCallSid, type SimulatedCall } from './simulated-call.ts';
import { CallReports, type ReportedAs, type Webhooks } from './reports.ts';
import { bridgeTransfer } from './transfers.ts';
import { readTwiml, sayText } from './twiml.ts';
import { SupervisorHold } from './warm-transfers.ts';
import { SandboxMessaging } from './messaging.ts';
import { SandboxWhatsApp } from './whatsapp.ts';
import { Softphones, type SoftphonePage } from './softphones.ts';
import { sandboxCallPriceMicros } from './rates.ts';
import { beep, CalleeVoice } from './voice.ts';

/** How long an ended call stays readable. */
const KEEP_ENDED_MS = 10 * 60 * 1000;

interface Running {
  call: SimulatedCall;
  /** Aborted when Parley ends the call, or the carrier stops. */
  ending: AbortController;
  line?: Line;
  /** The softphone page on the other end, when a person in a browser is the callee or the caller. */
  page?: SoftphonePage;
  reports: CallReports;
  /** The transfer Parley asked for: the line to Parley is down, the caller is being connected to a number. */
  handover?: TransferRequest;
  /** The warm transfer Parley asked for: the line to Parley is down, the caller waits for a supervisor. */
  hold?: SupervisorHold;
}

/**
 * The sandbox carrier's calls: it dials a simulated callee (callees.ts), reports each status change to the
 * call's status callback as Twilio does (a form signed with `X-Twilio-Signature`), and once the callee answers
 * connects the call to Parley's media gateway over Media Streams, where the callee speaks its lines
 * (espeak-ng) and listens for the assistant's turns. Calls live in this process, in memory: a simulator of
 * the phone network, not a record of it. A number claimed by a softphone page (softphones.ts) rings that page
 * instead of a scripted callee, and the page can ring Parley's numbers. Twilio's fake in the tests plays its
 * calls here too, as Twilio's account (`accountSid`, `token`), reaching Parley through a tunnel (`reach`) and
 * keeping its call records by `observe`.
 */
export class SandboxCarrier {
  readonly accountSid: string;
  /** Its text messages, reported the same way (messaging.ts). */
  readonly messages: SandboxMessaging;
  /** Its WhatsApp chats with the browser page's phones (whatsapp.ts). */
  readonly whatsapp: SandboxWhatsApp;
  private readonly running = new Map<string, Running>();
  private readonly ended = new Map<string, SimulatedCall>();
  private readonly voice = new CalleeVoice();
  private readonly logger: Logger;
  private readonly webhooks: Webhooks;
  private readonly observe?: (call: SimulatedCall) => void;
  private readonly scripts = new Map<string, string[]>();
  /** The softphone pages connected now, and the numbers they claimed. */
  readonly softphones: Softphones;

  private readonly parleyUrl: () => string;
  private readonly timings: CalleeTimings;

  /**
   * `owned` says whether a Parley user holds a number, which no softphone may claim; `observe` is told each
   * change of a call's status or verdict. The account SID is made from the token unless given. `pace` is the
   * scripted callees' (callees.ts `timingsAt`, with `silentCalleeSeconds`), `phone` unless given.
   */
  constructor(options: {
    logger: Logger; token: () => string; parleyUrl: () => string; owned: (phoneNumber: string) => Promise<boolean>;
    accountSid?: string; reach?: (url: string) => string; observe?: (call: SimulatedCall) => void; pace?: 'phone' | 'instant';
    silentCalleeSeconds?: number;
  }) {
    this.timings = timingsAt(options.pace ?? 'phone', options.silentCalleeSeconds);
    this.logger = options.logger.child({ component: 'sandbox-carrier' });
    this.webhooks = { token: options.token, reach: options.reach, logger: this.logger };
    this.observe = options.observe;
    this.parleyUrl = options.parleyUrl;
    this.accountSid = options.accountSid ?? `AC${createHash('sha256').update(options.token()).digest('hex').slice(0, 32)}`;
    this.messages = new SandboxMessaging({ logger: this.logger, accountSid: this.accountSid, token: options.token, parleyUrl: options.parleyUrl });
    this.whatsapp = new SandboxWhatsApp({ logger: this.logger, accountSid: this.accountSid, token: options.token, parleyUrl: options.parleyUrl });
    this.softphones = new Softphones({
      dial: (page, to) => this.ring({ from: page.number ?? '', to, page }),
      hangUp: (sid) => this.end(sid),
      owned: options.owned,
    }, this.logger);
  }

  /** Dials: answers the call's sid (chosen beforehand in `as`, when given) at once, then plays the call out; `as` Twilio would, for Twilio's fake. */
  place(request: CallRequest, as?: ReportedAs): string {
    const sid = as?.sid ?? newCallSid();
    const page = this.softphones.holder(request.to);
    const callee = page ? 'softphone' : calleeFor(request.to);
    const run = this.start({ sid, direction: 'outbound-api', request, callee, status: 'queued', startedAt: Date.now() }, page, as);
    void this.play(run).catch((error: unknown) => this.logger.error({ err: error, callSid: sid }, 'a simulated call broke'));
    return sid;
  }

  /**
   * A caller rings one of the carrier's numbers: the carrier asks the number's voice URL what to do (signed,
   * as Twilio asks), and the caller, a person saying `lines` (or the default script) or the person at a
   * softphone `page`, is connected as told. `routing` is the number's, as configured; without it (a softphone
   * dials any number, and Parley turns away one it does not hold) or with nulls (a number provisioned before
   * the carrier kept its routing), the call goes to Parley's routes.
   */
  ring(call: { from: string; to: string; lines?: string[]; page?: SoftphonePage; routing?: { voiceUrl: string | null; statusCallbackUrl: string | null } }, as?: ReportedAs): string {
    const sid = as?.sid ?? newCallSid();
    const parley = callbackRouting(this.parleyUrl(), 'sandbox');
    const voiceUrl = call.routing?.voiceUrl ?? parley.voiceUrl;
    const request: CallRequest = {
      from: call.from, to: call.to, ringTimeoutSeconds: 0, statusCallbackUrl: call.routing?.statusCallbackUrl ?? parley.statusCallbackUrl, stream: { url: '', parameters: {} },
    };
    const callee = call.page ? 'softphone' : 'person';
    const run = this.start({ sid, direction: 'inbound', request, callee, status: 'ringing', startedAt: Date.now() }, call.page, as);
    if (call.lines) this.scripts.set(call.from, call.lines);
    void this.answerAtParley(run, voiceUrl).catch((error: unknown) => this.logger.error({ err: error, callSid: sid }, 'a simulated call broke'));
    return sid;
  }

  /** Ends a call as Parley asks: a ringing one is cancelled, an answered one hung up. False when it is not live here. */
  end(sid: string): boolean {
    const run = this.running.get(sid);
    if (!run) return this.ended.has(sid);
    run.ending.abort();
    run.line?.hangUp();
    return true;
  }

  /**
   * Hands a live call over to a number, as a `<Dial>` replacing a call's TwiML does at Twilio: the media stream
   * to Parley ends at once, and the caller is connected to the callee the number's last two digits choose.
   * False when the call is not up with its stream (not answered, over, or already handed over).
   */
  transfer(sid: string, request: TransferRequest): boolean {
    const run = this.running.get(sid);
    if (!run?.line?.open || run.handover) return false;
    run.handover = request;
    run.call.transfer = { to: request.to, callee: calleeFor(request.to), status: 'ringing' };
    run.line.hangUp();
    return true;
  }

  /**
   * Holds a live call for a supervisor, as moving a call into a `<Conference>` does at Twilio: the media stream
   * to Parley ends at once and the supervisor is rung (warm-transfers.ts). Answers the supervisor's call sid;
   * undefined when the call is not up with its stream.
   */
  warmTransfer(sid: string, request: TwimlWarmTransferRequest): string | undefined {
    const run = this.running.get(sid);
    if (!run?.line?.open || run.handover || run.hold) return undefined;
    run.hold = new SupervisorHold(request);
    run.call.warmTransfer = run.hold.record;
    run.line.hangUp();
    return run.hold.record.supervisorSid;
  }

  /** Replaces a held call's TwiML, as Twilio's call update does. False when the call is not held here. */
  updateCall(sid: string, twiml: string): boolean {
    const hold = this.running.get(sid)?.hold;
    hold?.update(twiml);
    return hold !== undefined;
  }

  /** A number's person callee says these lines instead of the default script (the sandbox's test API). */
  setScript(phoneNumber: string, lines: string[]): void {
    this.scripts.set(phoneNumber, lines);
  }

  get(sid: string): SimulatedCall | undefined {
    return this.running.get(sid)?.call ?? this.ended.get(sid);
  }

  /** The calls placed to `to` (live, or ended within the last ten minutes), oldest first: how often it was dialled. */
  callsTo(to: string): SimulatedCall[] {
    return [...this.running.values()].map((run) => run.call).concat([...this.ended.values()])
      .filter((call) => call.direction === 'outbound-api' && call.request.to === to)
      .sort((a, b) => a.startedAt - b.startedAt);
  }

  /** Hangs every live call up and stops reporting messages (the process stops). */
  async close(): Promise<void> {
    this.softphones.close();
    const lines = [...this.running.values()].flatMap((run) => {
      run.ending.abort();
      run.line?.hangUp();
      return run.line ? [run.line.closed] : [];
    });
    await Promise.all([...lines, this.messages.close(), this.whatsapp.close()]);
  }

  private start(call: SimulatedCall, page: SoftphonePage | undefined, as: ReportedAs | undefined): Running {
    const reports = new CallReports(call, { accountSid: this.accountSid, webhooks: this.webhooks, as, observe: this.observe });
    const run: Running = { call, ending: new AbortController(), page, reports };
    this.running.set(call.sid, run);
    return run;
  }

  private async play(run: Running): Promise<void> {
    const { call, ending } = run;
    await run.reports.status('initiated');
    if (!await pause(this.timings.ringAfterMs, ending.signal)) return this.finish(run, 'canceled');
    await run.reports.status('ringing');
    const outcome = await this.ringing(run);
    if (outcome !== 'in-progress') return this.finish(run, outcome);

    call.answeredAt = Date.now();
    // As at Twilio, the answered call's stream starts at once; its status callback goes meanwhile.
    void run.reports.status('in-progress');
    return this.converse(run, call.request.stream);
  }

  /** How the callee's phone stops ringing: the call's next status, `in-progress` when answered. */
  private async ringing(run: Running): Promise<string> {
    const { call, ending, page } = run;
    const ringTimeoutMs = call.request.ringTimeoutSeconds * 1000;
    if (page) {
      const answer = await page.ring({ sid: call.sid, from: call.request.from }, ringTimeoutMs, ending.signal);
      return answer === 'answered' ? 'in-progress' : answer;
    }
    const ringing: Partial<Record<CalleeKind, [number, string]>> = {
      'busy': [this.timings.busyAfterMs, 'busy'],
      'failed': [this.timings.failAfterMs, 'failed'],
      'no-answer': [ringTimeoutMs, 'no-answer'],
    };
    const [ringMs, outcome] = ringing[call.callee] ?? [this.timings.answerAfterMs, 'in-progress'];
    return await pause(ringMs, ending.signal) ? outcome : 'canceled';
  }

  /** Asks Parley's voice webhook what to do with an incoming call, and does it: reject, say and hang up, or stream. */
  private async answerAtParley(run: Running, voiceUrl: string): Promise<void> {
    const { call } = run;
    const form = new URLSearchParams({
      AccountSid: this.accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, CallStatus: 'ringing', Direction: 'inbound', From: call.request.from, To: call.request.to,
    });
    const answer = await run.reports.post(voiceUrl, form, 'the voice webhook');
    // The caller (a softphone page) hung up while Parley was asked.
    if (run.ending.signal.aborted) return this.finish(run, 'canceled');
    const twiml = readTwiml(answer);
    if (twiml.verb === 'stream') {
      call.answeredAt = Date.now();
      void run.reports.status('in-progress');
      return this.converse(run, twiml.stream);
    }
    if (twiml.verb === 'say') {
      call.answeredAt = Date.now();
      // The person at a softphone hears the message, then the <Hangup/> after it; a scripted caller only waits.
      if (run.page) {
        const message = await this.voice.speak(sayText(answer)).catch((error: unknown) => {
          this.logger.warn({ err: error, callSid: call.sid }, 'the <Say> could not be synthesized: the caller hears silence');
          return new Int16Array(0);
        });
        await run.page.play(call.sid, message, run.ending.signal);
      } else await pause(this.timings.silentHangUpAfterMs, run.ending.signal);
      return this.finish(run, 'completed');
    }
    // Rejected, or no usable answer: the caller hears a busy line, as Twilio plays for <Reject>.
    return this.finish(run, twiml.verb === 'reject' ? 'busy' : 'failed');
  }

  /** The call is up: the callee's line streams to Parley until one end hangs up. */
  private async converse(run: Running, stream: { url: string; parameters: Record<string, string> }): Promise<void> {
    const { call, ending } = run;
    try {
      run.line = await Line.open({ url: stream.url, parameters: stream.parameters, accountSid: this.accountSid, callSid: call.sid });
    } catch (error) {
      // As at Twilio: a stream that cannot connect ends its <Connect>, and with it the call.
      this.logger.warn({ err: error, callSid: call.sid }, 'the media stream could not be opened');
      return this.finish(run, 'completed');
    }
    const line = run.line;
    const closed = new AbortController();
    // A scripted callee hangs up at its cap; the person at a softphone whenever they like.
    const talking = AbortSignal.any([ending.signal, closed.signal, ...run.page ? [] : [AbortSignal.timeout(this.timings.personCapMs)]]);
    // The stream ending ends the call, unless it ended because the call is being handed over.
    line.closed.then(() => (run.handover || run.hold ? closed.abort() : ending.abort()), () => undefined);
    await this.talk(run, line, talking);
    call.firstSoundAt = line.firstSoundAt;
    line.hangUp();
    await line.closed;
    if (run.handover) {
      await bridgeTransfer({ call: run.call, request: run.handover, signal: run.ending.signal, accountSid: this.accountSid, post: (url, form, what) => run.reports.post(url, form, what) });
    }
    if (run.hold) {
      await run.hold.run({
        callSid: call.sid, accountSid: this.accountSid, signal: ending.signal, post: (url, form, what) => run.reports.post(url, form, what), reach: this.webhooks.reach,
      });
    }
    return this.finish(run, 'completed');
  }

  /** What the callee does once the call is up, until it hangs up or the far end does. */
  private async talk(run: Running, line: Line, signal: AbortSignal): Promise<void> {
    const { callee: kind, request } = run.call;
    if (run.page) return run.page.bridge(run.call.sid, line, signal);
    if (kind === 'silent-hang-up') {
      await pause(this.timings.silentHangUpAfterMs, signal);
      return;
    }
    if (kind === 'voicemail') {
      const box = { heardOverGreetingMs: 0, recordedMs: 0 };
      run.call.voicemail = box;
      await line.say(await this.voice.speak(VOICEMAIL_GREETING));
      box.heardOverGreetingMs = line.soundMs;
      await line.say(beep());
      // As Twilio's DetectMessageEnd: a machine, known once its greeting ended with the beep.
      run.reports.verdict('machine_end_beep', Date.now() - (run.call.answeredAt ?? Date.now()));
      const recordingFrom = line.soundMs;
      const recording = AbortSignal.any([signal, AbortSignal.timeout(this.timings.voicemailRecordMs)]);
      // The message left, then a long enough pause: the box hangs up, as boxes do.
      await farEndTurn(line, recording, this.timings.voicemailRecordMs, 3000);
      box.recordedMs = line.soundMs - recordingFrom;
      return;
    }
    await farEndTurn(line, signal, this.timings.turnWaitMs);
    const callee = run.call.direction === 'inbound' ? request.from : request.to;
    for (const text of this.scripts.get(callee) ?? DEFAULT_SCRIPT) {
      if (signal.aborted) return;
      await line.say(await this.voice.speak(text));
      // As Twilio's detection: a person, known by a short greeting and the silence after it.
      if (!signal.aborted) run.reports.verdict('human', Date.now() - (run.call.answeredAt ?? Date.now()));
      await farEndTurn(line, signal, this.timings.turnWaitMs);
    }
    await pause(this.timings.goodbyeHangUpMs, signal);
  }

  private async finish(run: Running, status: string): Promise<void> {
    const { call } = run;
    call.endedAt = Date.now();
    call.priceMicros = call.answeredAt ? sandboxCallPriceMicros(call.direction, call.request.to, call.endedAt - call.answeredAt) : 0;
    this.running.delete(call.sid);
    this.ended.set(call.sid, call);
    setTimeout(() => this.ended.delete(call.sid), KEEP_ENDED_MS).unref();
    run.page?.ended(call.sid, status);
    const duration = call.answeredAt ? Math.ceil((call.endedAt - call.answeredAt) / 1000) : 0;
    await run.reports.status(status, status === 'completed' ? { CallDuration: String(duration) } : {});
  }
}
