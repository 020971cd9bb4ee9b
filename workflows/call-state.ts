import type { HangUpOutcome } from '../src/providers/media-control/index.ts';
import { finalCarrierStatuses, type CallPhase, type CarrierStatusSignal } from '../src/temporal/shared.ts';

/** How a call ended: the reason in the engine's words, and when (ISO 8601). */
export interface CallEnd {
  reason: string;
  at: string;
}

/** Why the workflow hangs a call up itself: nothing connected in time, someone asked, or the time limit passed. */
export type HangUpCause = 'connect_timeout' | 'requested' | 'time_limit';

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

  /** Connecting is over: the call was answered, its session or its line ended, or someone asked to end it. */
  get connectingSettled(): boolean {
    return this.answeredAt !== undefined || this.reported !== undefined || this.endRequest !== undefined || this.carrierEnd !== undefined;
  }

  /** The live call has something to act on: its session or its line ended, or someone asked to end it. */
  get endingDue(): boolean {
    return this.reported !== undefined || this.endRequest !== undefined || this.carrierEnd !== undefined;
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
    return this.answeredAt === undefined ? 'connect_timeout' : 'time_limit';
  }

  /** The reason the hang-up request tells the media session. */
  hangUpReason(cause: HangUpCause): string {
    if (cause === 'requested') return this.endRequest ?? 'requested';
    return cause === 'time_limit' ? 'max_duration' : 'connect_timeout';
  }

  /**
   * The end of a call whose session did not report one after it was hung up. A session found gone had died
   * without a word: `media_lost`. Otherwise the reason it was hung up for. When it ended is unknown: a call
   * that was answered is taken to have lasted at most its time limit, so a lost session never costs more
   * than the balance was seen to pay for.
   */
  unreportedEnd(cause: HangUpCause, hangUp: HangUpOutcome, nowMs: number, maxSeconds: number): CallEnd {
    if (this.answeredAt === undefined) return { reason: this.hangUpReason(cause), at: new Date(nowMs).toISOString() };
    const limit = Date.parse(this.answeredAt) + maxSeconds * 1000;
    return {
      reason: hangUp === 'gone' ? 'media_lost' : this.hangUpReason(cause),
      at: new Date(Math.min(nowMs, limit)).toISOString(),
    };
  }
}
