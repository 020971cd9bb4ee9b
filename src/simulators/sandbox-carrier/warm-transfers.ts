import { randomBytes } from 'node:crypto';
import { pause } from '../../lib/abort.ts';
import { wavPeak } from '../../providers/telephony/hold-music.ts';
import type { TwimlWarmTransferRequest } from '../../providers/telephony/types.ts';
import { calleeFor, timings, type CalleeKind } from './callees.ts';
import type { SimulatedWarmTransfer } from './simulated-call.ts';
import type { PostWebhook } from './transfers.ts';
import { sayText } from './twiml.ts';

/**
 * The sandbox carrier's warm transfer, as Twilio runs one with a conference: the caller waits in the room with
 * the hold music (fetched as Twilio fetches a `waitUrl`), while the supervisor's phone rings like a dialled
 * callee's; a supervisor who answers hears the `<Say>` of their TwiML and follows its `<Redirect>` to Parley,
 * which moves the caller (`update`) before answering with the room to join. Each status change of the
 * supervisor's call is posted to `supervisorStatusUrl`, where a supervisor who never answered gets Parley to
 * move the caller to its apology. The caller's call then ends.
 */
export class SupervisorHold {
  readonly record: SimulatedWarmTransfer;
  private readonly request: TwimlWarmTransferRequest;
  /** The TwiML Parley moved the caller to, latest last. */
  private readonly updates: string[] = [];

  constructor(request: TwimlWarmTransferRequest) {
    this.request = request;
    this.record = {
      to: request.to, callee: calleeFor(request.to), supervisorSid: `CA${randomBytes(16).toString('hex')}`, room: request.room, status: 'queued', holdMusicPeak: 0,
    };
  }

  /** Parley replaces the held caller's TwiML (Twilio's call update). */
  update(twiml: string): void {
    this.updates.push(twiml);
  }

  /**
   * Plays the hold out; resolves once the caller's call is over. `signal`: the caller hung up, or the carrier
   * stops; `reach`: where a request to Parley's URL goes, as for the carrier's webhooks.
   */
  async run(options: { callSid: string; accountSid: string; signal: AbortSignal; post: PostWebhook; reach?: (url: string) => string }): Promise<void> {
    const { record, request } = this;
    const { signal } = options;
    if (request.holdMusicUrl) record.holdMusicPeak = await this.holdMusic(options.reach?.(request.holdMusicUrl) ?? request.holdMusicUrl, signal);
    const status = (CallStatus: string, extra: Record<string, string> = {}) => options.post(request.supervisorStatusUrl, new URLSearchParams({
      AccountSid: options.accountSid, CallSid: record.supervisorSid, CallStatus, Direction: 'outbound-api', From: request.callerId, To: request.to, ...extra,
    }), `the supervisor's status ${CallStatus}`);

    record.status = 'ringing';
    const ringing: Partial<Record<CalleeKind, [number, string]>> = {
      'busy': [timings.busyAfterMs, 'busy'],
      'failed': [timings.failAfterMs, 'failed'],
      'no-answer': [request.ringTimeoutSeconds * 1000, 'no-answer'],
    };
    const [ringMs, outcome] = ringing[record.callee] ?? [timings.answerAfterMs, 'in-progress'];
    const rang = await pause(timings.ringAfterMs + ringMs, signal);
    if (!rang || outcome !== 'in-progress') {
      record.status = rang ? outcome : 'canceled';
      record.endedAt = Date.now();
      await status(record.status);
      return this.heardAfterHold(signal);
    }

    record.status = 'in-progress';
    record.answeredAt = Date.now();
    record.briefing = sayText(request.supervisorTwiml);
    const redirect = /<Redirect\b[^>]*>([^<]+)<\/Redirect>/.exec(request.supervisorTwiml)?.[1]?.replace(/&amp;/g, '&');
    const joined = redirect ? await options.post(redirect, new URLSearchParams({
      AccountSid: options.accountSid, CallSid: record.supervisorSid, CallStatus: 'in-progress', Direction: 'outbound-api', From: request.callerId, To: request.to,
    }), 'the supervisor\'s bridge') : '';
    const callerMoved = this.updates.at(-1);
    if (/<Conference\b/.test(joined) && callerMoved && /<Conference\b/.test(callerMoved)) {
      record.callerHeard = sayText(callerMoved);
      record.bridgedAt = Date.now();
      const talkMs = record.callee === 'silent-hang-up' ? timings.silentHangUpAfterMs : timings.bridgedTalkMs;
      await pause(talkMs, signal);
    }
    record.status = 'completed';
    record.endedAt = Date.now();
    await status('completed', { CallDuration: String(Math.ceil((record.endedAt - record.answeredAt) / 1000)) });
    if (!record.bridgedAt) await this.heardAfterHold(signal);
  }

  /** The hold music Twilio would loop: its loudest sample, 0 when there is none to hear. */
  private async holdMusic(url: string, signal: AbortSignal): Promise<number> {
    try {
      const response = await fetch(url, { signal: AbortSignal.any([signal, AbortSignal.timeout(15_000)]) });
      return response.ok ? wavPeak(Buffer.from(await response.arrayBuffer())) : 0;
    } catch {
      return 0;
    }
  }

  /**
   * The supervisor never took the caller: what Parley moved the caller to (its apology) is heard, and the call
   * ends. Without a word from Parley the caller would wait in the room, until they give up.
   */
  private async heardAfterHold(signal: AbortSignal): Promise<void> {
    const moved = this.updates.at(-1);
    if (moved) {
      this.record.callerHeard = sayText(moved);
      return;
    }
    await pause(timings.personCapMs, signal);
  }
}
