/**
 * The course of a call both sessions share, the pipeline's CallSession and the speech-to-speech
 * RealtimeCallSession: the answer time its turns are reported against, the time limit, the silence rules
 * (re-engage, then end), the two ways a call ends (hangUp says goodbye, endNow does not), closing it exactly
 * once, and work from events and timers whose failure ends the call. What is said and how it stops stays
 * with the session, asked through its host.
 */
import type { Logger } from '../logger.ts';
import type { VoiceClock } from './clock.ts';
import type { CallHooks, EndReason } from './hooks.ts';
import type { UserTurn } from './listening/listener.ts';
import { goodbyesIn, reengageInstructionIn } from './session-parts.ts';
import type { VoiceSettings } from './settings.ts';
import { callTurn, type AnswerTime, type MeasuredTurn } from './turn-record.ts';
import { nextSilenceAction } from './turns/silence.ts';

/** What the lifecycle reads of the session's parts; `settings` is read each time (a hand-over replaces it). */
export interface LifecycleParts {
  settings: VoiceSettings;
  maxCallMs: number;
  /** Which limit `maxCallMs` is, so the goodbye says why the call ends. */
  limitReason: 'max_duration' | 'balance_exhausted';
  hooks: CallHooks;
  clock: VoiceClock;
  logger: Logger;
  /** Releases the transport, the pacer and the recorder once the session has ended. */
  close: (reason: EndReason) => Promise<void>;
}

/** What the lifecycle asks of its session. */
export interface LifecycleHost {
  /** Hanging up: stops what is being said and says `farewell`, when given, to the end. */
  wrapUp(farewell: string | undefined): Promise<void>;
  /** Ending now: drops what is being said; the reason the call ends with, `reason` or one the session knows better. */
  drop(reason: EndReason): EndReason;
  /**
   * The line ended: the caller's turn heard but not yet committed, once its words come (within a short bound),
   * to be kept as their last words, not answered.
   */
  lastWords?(): Promise<UserTurn | undefined>;
  /** No one has the floor and nothing holds it: the silence may be filled. */
  silent(): boolean;
  /** The caller has been silent a while: ask whether they are still there, told by `instruction`. */
  reengage(instruction: string): void;
  /** The session's own resources, released when it finishes. */
  release(): void;
}

export class SessionLifecycle {
  readonly answer: AnswerTime;
  /** On the voice clock: the caller's last words or keys, and anyone's (the assistant's last words too). */
  callerSpokeAt: number;
  anyoneSpokeAt: number;
  /** Hanging up or ended: nothing more is answered. */
  ending = false;
  finished = false;
  /** endNow() is closing the call (waiting, perhaps, for the caller's last words). */
  private closing = false;
  readonly ended: Promise<EndReason>;
  private readonly parts: LifecycleParts;
  private readonly host: LifecycleHost;
  private readonly failure: string;
  private silenceTimer: { cancel(): void } | undefined;
  private limitTimer: { cancel(): void } | undefined;
  private resolveEnded: ((reason: EndReason) => void) | undefined;

  /** `failure`: what the log says when guarded work fails. */
  constructor(parts: LifecycleParts, host: LifecycleHost, failure: string) {
    this.parts = parts;
    this.host = host;
    this.failure = failure;
    this.answer = { clockMs: parts.clock.now(), at: new Date() };
    this.callerSpokeAt = this.answer.clockMs;
    this.anyoneSpokeAt = this.answer.clockMs;
    this.ended = new Promise((resolve) => { this.resolveEnded = resolve; });
  }

  /** The call's time limit runs from now; at its end the goodbye says which limit it was. */
  startLimit(): void {
    const { parts } = this;
    this.limitTimer = parts.clock.setTimeout(() => this.guard(this.hangUp(parts.limitReason, goodbyesIn(parts.settings.ttsLanguage)[parts.limitReason])), parts.maxCallMs);
  }

  /** The caller spoke or pressed a key at `at`. */
  callerSpoke(at: number): void {
    this.callerSpokeAt = at;
    this.anyoneSpokeAt = at;
  }

  /** Ends the call: the session stops what is said and says `farewell` when given, then it closes with `reason`. */
  async hangUp(reason: EndReason, farewell?: string): Promise<void> {
    if (this.ending) return;
    this.ending = true;
    this.cancelTimers();
    await this.host.wrapUp(farewell);
    await this.finish(reason);
  }

  /**
   * The stream ended or the engine failed: no more words, it closes now, once the caller's last words (said
   * before the call was ending) are in. The call ends when the line did, whatever that wait.
   */
  async endNow(reason: EndReason): Promise<void> {
    if (this.finished || this.closing) return;
    const endedAt = new Date();
    const lastWords = !this.ending;
    this.closing = true;
    this.ending = true;
    this.cancelTimers();
    const final = this.host.drop(reason);
    const turn = lastWords ? await this.host.lastWords?.() : undefined;
    if (turn?.text && !this.finished) this.report({ role: 'user', text: turn.text, startedAt: turn.startedAt, endedAt: turn.speechEndedAt, interrupted: false, metrics: {} });
    await this.finish(final, endedAt);
  }

  /** Closes with `reason` at once, nothing more said (after a transfer). */
  async end(reason: EndReason): Promise<void> {
    this.ending = true;
    this.cancelTimers();
    await this.finish(reason);
  }

  private async finish(reason: EndReason, endedAt = new Date()): Promise<void> {
    if (this.finished) return;
    this.finished = true;
    this.cancelTimers();
    this.host.release();
    try {
      await this.parts.close(reason);
    } catch (error) {
      this.parts.logger.warn({ err: error }, 'closing the call session failed');
    }
    this.parts.hooks.onEnded?.(reason, endedAt);
    this.resolveEnded?.(reason);
  }

  /** Waits for the caller: re-engages or ends the call when the silence lasts, unless someone takes the floor. */
  armSilence(): void {
    this.silenceTimer?.cancel();
    if (this.ending || !this.host.silent()) return;
    const { clock, settings } = this.parts;
    const next = nextSilenceAction(settings, { callerSpokeAt: this.callerSpokeAt, anyoneSpokeAt: this.anyoneSpokeAt });
    this.silenceTimer = clock.setTimeout(() => {
      if (this.ending || !this.host.silent()) return;
      if (next.action === 'end') this.guard(this.hangUp('silence_timeout', goodbyesIn(settings.ttsLanguage).silence_timeout));
      else this.host.reengage(settings.reengagementPrompt ?? reengageInstructionIn(settings.ttsLanguage));
    }, next.at - clock.now());
  }

  /** Someone took the floor: no silence is filled meanwhile. */
  cancelSilence(): void {
    this.silenceTimer?.cancel();
  }

  /** Work started from an event or a timer: an unexpected failure ends the call as an error instead of going unheard. */
  guard(work: Promise<void>): void {
    work.catch((error: unknown) => {
      this.parts.logger.error({ err: error }, this.failure);
      void this.endNow('error');
    });
  }

  report(turn: MeasuredTurn): void {
    this.parts.hooks.onTurn?.(callTurn(this.answer, turn));
  }

  private cancelTimers(): void {
    this.silenceTimer?.cancel();
    this.limitTimer?.cancel();
  }
}
