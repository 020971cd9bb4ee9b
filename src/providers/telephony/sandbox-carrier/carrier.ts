import { createHash, randomBytes } from 'node:crypto';
import { twilioSignatureOf } from '../../../lib/twilio-signature.ts';
import type { Logger } from '../../../logger.ts';
import type { CallRequest } from '../types.ts';
import { calleeFor, DEFAULT_SCRIPT, timings, VOICEMAIL_GREETING, type CalleeKind } from './callees.ts';
import { Line } from './line.ts';
import { beep, CalleeVoice } from './voice.ts';

/** What the carrier saw of one call: for tests, and for the dial bench's answer-to-first-audio figure. */
export interface SimulatedCall {
  sid: string;
  request: CallRequest;
  callee: CalleeKind;
  status: string;
  startedAt: number;
  answeredAt?: number;
  /** When the callee first heard sound from Parley (ms since the epoch). */
  firstSoundAt?: number;
  endedAt?: number;
}

/** How long an ended call stays readable. */
const KEEP_ENDED_MS = 10 * 60 * 1000;

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', aborted);
      resolve(true);
    }, ms);
    const aborted = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', aborted, { once: true });
  });
}

interface Running {
  call: SimulatedCall;
  /** Aborted when Parley ends the call, or the carrier stops. */
  ending: AbortController;
  line?: Line;
  sequence: number;
}

/**
 * The sandbox carrier's calls: it dials a simulated callee (callees.ts), reports each status change to the
 * call's status callback as Twilio does (a form signed with `X-Twilio-Signature`), and once the callee answers
 * connects the call to Parley's media gateway over Media Streams, where the callee speaks its lines
 * (espeak-ng) and listens for the assistant's turns. Calls live in this process, in memory: a simulator of
 * the phone network, not a record of it.
 */
export class SandboxCarrier {
  readonly accountSid: string;
  private readonly running = new Map<string, Running>();
  private readonly ended = new Map<string, SimulatedCall>();
  private readonly voice = new CalleeVoice();
  private readonly logger: Logger;
  private readonly token: () => string;
  private readonly scripts = new Map<string, string[]>();

  constructor(options: { logger: Logger; token: () => string }) {
    this.logger = options.logger.child({ component: 'sandbox-carrier' });
    this.token = options.token;
    this.accountSid = `AC${createHash('sha256').update(options.token()).digest('hex').slice(0, 32)}`;
  }

  /** Dials: answers the call's sid at once, then plays the call out. */
  place(request: CallRequest): string {
    const sid = `CA${randomBytes(16).toString('hex')}`;
    const run: Running = { call: { sid, request, callee: calleeFor(request.to), status: 'queued', startedAt: Date.now() }, ending: new AbortController(), sequence: 0 };
    this.running.set(sid, run);
    void this.play(run).catch((error: unknown) => this.logger.error({ err: error, callSid: sid }, 'a simulated call broke'));
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

  /** A number's person callee says these lines instead of the default script (the sandbox's test API). */
  setScript(phoneNumber: string, lines: string[]): void {
    this.scripts.set(phoneNumber, lines);
  }

  get(sid: string): SimulatedCall | undefined {
    return this.running.get(sid)?.call ?? this.ended.get(sid);
  }

  /** Hangs every live call up (the process stops). */
  async close(): Promise<void> {
    const lines = [...this.running.values()].flatMap((run) => {
      run.ending.abort();
      run.line?.hangUp();
      return run.line ? [run.line.closed] : [];
    });
    await Promise.all(lines);
  }

  private async play(run: Running): Promise<void> {
    const { call, ending } = run;
    await this.report(run, 'initiated');
    if (!await wait(timings.ringAfterMs, ending.signal)) return this.finish(run, 'canceled');
    await this.report(run, 'ringing');
    const ringing: Partial<Record<CalleeKind, [number, string]>> = {
      'busy': [timings.busyAfterMs, 'busy'],
      'failed': [timings.failAfterMs, 'failed'],
      'no-answer': [call.request.ringTimeoutSeconds * 1000, 'no-answer'],
    };
    const [ringMs, outcome] = ringing[call.callee] ?? [timings.answerAfterMs, 'in-progress'];
    if (!await wait(ringMs, ending.signal)) return this.finish(run, 'canceled');
    if (outcome !== 'in-progress') return this.finish(run, outcome);

    call.answeredAt = Date.now();
    await this.report(run, 'in-progress');
    try {
      run.line = await Line.open({ url: call.request.stream.url, parameters: call.request.stream.parameters, accountSid: this.accountSid, callSid: call.sid });
    } catch (error) {
      // As at Twilio: a stream that cannot connect ends its <Connect>, and with it the call.
      this.logger.warn({ err: error, callSid: call.sid }, 'the media stream could not be opened');
      return this.finish(run, 'completed');
    }
    const line = run.line;
    const talking = AbortSignal.any([ending.signal, AbortSignal.timeout(timings.personCapMs)]);
    line.closed.then(() => ending.abort(), () => undefined);
    await this.talk(run, line, talking);
    call.firstSoundAt = line.firstSoundAt;
    line.hangUp();
    await line.closed;
    return this.finish(run, 'completed');
  }

  /** What the callee does once the call is up, until it hangs up or the far end does. */
  private async talk(run: Running, line: Line, signal: AbortSignal): Promise<void> {
    const { callee, request } = run.call;
    if (callee === 'silent-hang-up') {
      await wait(timings.silentHangUpAfterMs, signal);
      return;
    }
    if (callee === 'voicemail') {
      await line.say(await this.voice.speak(VOICEMAIL_GREETING));
      await line.say(beep());
      const recording = AbortSignal.any([signal, AbortSignal.timeout(timings.voicemailRecordMs)]);
      // The message left, then a long enough pause: the box hangs up, as boxes do.
      await this.heardTurn(line, recording, timings.voicemailRecordMs, 3000);
      return;
    }
    await this.heardTurn(line, signal, timings.turnWaitMs);
    for (const text of this.scripts.get(request.to) ?? DEFAULT_SCRIPT) {
      if (signal.aborted) return;
      await line.say(await this.voice.speak(text));
      await this.heardTurn(line, signal, timings.turnWaitMs);
    }
    await wait(timings.goodbyeHangUpMs, signal);
  }

  /**
   * Waits for the far end to finish a turn: sound after now, then `quietMs` of quiet; gives up after
   * `waitMs` without sound, or when the call ends.
   */
  private async heardTurn(line: Line, signal: AbortSignal, waitMs: number, quietMs = timings.turnQuietMs): Promise<void> {
    const since = Date.now();
    while (!signal.aborted) {
      const now = Date.now();
      const spoke = line.lastSoundAt !== undefined && line.lastSoundAt > since;
      if (spoke && now - (line.lastSoundAt ?? now) >= quietMs) return;
      if (!spoke && now - since >= waitMs) return;
      await wait(50, signal);
    }
  }

  private async finish(run: Running, status: string): Promise<void> {
    const { call } = run;
    call.endedAt = Date.now();
    this.running.delete(call.sid);
    this.ended.set(call.sid, call);
    setTimeout(() => this.ended.delete(call.sid), KEEP_ENDED_MS).unref();
    const duration = call.answeredAt ? Math.ceil((call.endedAt - call.answeredAt) / 1000) : 0;
    await this.report(run, status, status === 'completed' ? { CallDuration: String(duration) } : {});
  }

  /** Posts a status change to the call's callback as Twilio does; a callback that fails is logged, not retried. */
  private async report(run: Running, status: string, extra: Record<string, string> = {}): Promise<void> {
    const { call } = run;
    call.status = status;
    const form = new URLSearchParams({
      AccountSid: this.accountSid, ApiVersion: '2010-04-01', CallSid: call.sid, CallStatus: status, Direction: 'outbound-api',
      From: call.request.from, To: call.request.to, SequenceNumber: String(run.sequence++), Timestamp: new Date().toUTCString().replace('GMT', '+0000'),
      ...extra,
    });
    const url = call.request.statusCallbackUrl;
    try {
      const answer = await fetch(url, {
        method: 'POST',
        body: form.toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-twilio-signature': twilioSignatureOf(this.token(), url, form), 'user-agent': 'ParleySandboxCarrier/1.0' },
        signal: AbortSignal.timeout(15_000),
      });
      await answer.body?.cancel();
      if (!answer.ok) this.logger.warn({ callSid: call.sid, status, answered: answer.status }, 'a status callback was refused');
    } catch (error) {
      this.logger.warn({ err: error, callSid: call.sid, status }, 'a status callback could not be delivered');
    }
  }
}
