import type { HangUpOutcome } from '../src/providers/media-control/index.ts';
import { finalCarrierStatuses, type AnsweredBySignal, type CallPhase, type CarrierStatusSignal } from '../src/temporal/shared.ts';

/** How a call ended: the reason in the engine's words, and when (ISO 8601). */
export interface CallEnd {
  reason: string;
  at: string;
}

/**
 * Why the workflow hangs a call up itself: nothing connected in time, someone asked, the time limit passed, or
 * the carrier found a machine on the line of an assistant that hangs up on machines.
 */
export type HangUpCause = 'connect_timeout' | 'requested' | 'time_limit' | 'voicemail';

/** Whether `next` replaces `current` as the verdict on who answered (CallState.judge). */
function outranks(next: AnsweredBySignal, current: AnsweredBySignal): boolean {
  const sure = (verdict: AnsweredBySignal) => verdict.answeredBy !== 'unknown';
  if (current.source === 'carrier' && sure(current)) return false;
  return sure(next) && (next.source === 'carrier' || !sure(current));
}

/**
 * What a call's lifecycle has heard through its signals, and the rules that make a call's end of it. Plain
 * data and decisions, no Temporal: the workflow feeds it the signals and asks it what follows. The first
 * of each signal counts; a repeat (the media side retrying) changes nothing.
 */
export class CallState {
  phase: CallPhase = 'preparing';
  answeredAt: string | undefined;
  /** The end the media session reported. */
  reported: CallEnd | undefined;
  /** The reason of the first request to end the call. */
  endRequest: string | undefined;
  /** A phone call's first final status at the carrier: the line is down. */
  carrierEnd: CarrierStatusSignal | undefined;
  /** Who answered, as judged so far. */
  verdict: AnsweredBySignal | undefined;
  /** The verdict stored on the call's row. */
  private storedVerdict: AnsweredBySignal | undefined;
  /** The assistant hangs up when a machine answers (`end_call_on_voicemail`). */
  endOnVoicemail = false;

  answer(at: string): void {
    this.answeredAt ??= at;
  }

  reportEnd(end: CallEnd): void {
    this.reported ??= { reason: end.reason, at: end.at };
  }

  requestEnd(reason: string): void {
    this.endRequest ??= reason;
  }

  /**
   * The carrier's status callbacks, which may come late or out of order: the callee answering counts as the
   * call answered (the media stream's own start may come first), and the first final status ends the line.
   */
  carrierStatus(signal: CarrierStatusSignal): void {
    if (signal.status === 'in-progress') this.answer(signal.at);
    if (finalCarrierStatuses.includes(signal.status)) this.carrierEnd ??= signal;
  }

  /**
   * A verdict on who answered. The carrier's, when it is sure (human or machine), stands over the engine's; a
   * sure verdict stands over an unsure one (`unknown`); otherwise the first one counts.
   */
  judge(signal: AnsweredBySignal): void {
    if (!this.verdict || outranks(signal, this.verdict)) this.verdict = { answeredBy: signal.answeredBy, source: signal.source, at: signal.at };
  }

  /** A verdict not yet stored on the call's row. */
  get verdictToStore(): AnsweredBySignal | undefined {
    return this.verdict === this.storedVerdict ? undefined : this.verdict;
  }

  verdictStored(verdict: AnsweredBySignal): void {
    this.storedVerdict = verdict;
  }

  /**
   * The carrier found a machine and the assistant hangs up on machines: the workflow ends the call. (On its own
   * verdict the engine ends the call itself.)
   */
  get voicemailDue(): boolean {
    return this.endOnVoicemail && this.verdict?.source === 'carrier' && this.verdict.answeredBy === 'machine';
  }

  /** Connecting is over: the call was answered, its session or its line ended, or someone asked to end it. */
  get connectingSettled(): boolean {
    return this.answeredAt !== undefined || this.reported !== undefined || this.endRequest !== undefined || this.carrierEnd !== undefined;
  }

  /** The live call has something to act on: its session or its line ended, someone asked to end it, or a machine answered. */
  get endingDue(): boolean {
    return this.reported !== undefined || this.endRequest !== undefined || this.carrierEnd !== undefined || this.voicemailDue;
  }

  /**
   * A phone call the callee never answered, from the carrier's final word: `busy`, `no-answer`, or `failed`
   * (a call the carrier failed or that was cancelled). Undefined while the carrier has not said.
   */
  get unansweredEnd(): CallEnd | undefined {
    const end = this.carrierEnd;
    if (!end || this.answeredAt !== undefined) return undefined;
    return { reason: end.status === 'busy' || end.status === 'no-answer' ? end.status : 'failed', at: end.at };
  }

  /** Why the workflow hangs up, when the session has not reported an end. */
  get hangUpCause(): HangUpCause {
    if (this.endRequest !== undefined) return 'requested';
    if (this.voicemailDue) return 'voicemail';
    return this.answeredAt === undefined ? 'connect_timeout' : 'time_limit';
  }

  /** The reason the hang-up request tells the media session. */
  hangUpReason(cause: HangUpCause): string {
    if (cause === 'requested') return this.endRequest ?? 'requested';
    if (cause === 'voicemail') return 'voicemail';
    return cause === 'time_limit' ? 'max_duration' : 'connect_timeout';
  }

  /**
   * The end of a call whose session did not report one after it was hung up. A session found gone had died
   * without a word: `media_lost`, unless a machine answered, which is why the call ended whatever the session
   * did. Otherwise the reason it was hung up for. When it ended is unknown: a call
   * that was answered is taken to have lasted at most its time limit, so a lost session never costs more
   * than the balance was seen to pay for.
   */
  unreportedEnd(cause: HangUpCause, hangUp: HangUpOutcome, nowMs: number, maxSeconds: number): CallEnd {
    if (this.answeredAt === undefined) return { reason: this.hangUpReason(cause), at: new Date(nowMs).toISOString() };
    const limit = Date.parse(this.answeredAt) + maxSeconds * 1000;
    return {
      reason: hangUp === 'gone' && cause !== 'voicemail' ? 'media_lost' : this.hangUpReason(cause),
      at: new Date(Math.min(nowMs, limit)).toISOString(),
    };
  }
}
