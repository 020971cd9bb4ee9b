/**
 * When to leave the message on a voicemail box: just after its beep (a box records from the beep), or, for a
 * box that does not beep (or a beep that was missed), once its greeting has been followed by a long quiet;
 * and never later than a cap, so a box that keeps talking cannot hold the call. Pure, like the judge: told
 * the beeps, the speech and the time.
 */
import type { BeepEvent } from './beep.ts';

export interface CueRules {
  /** The message starts this long after the beep ends, unless the box speaks or beeps again meanwhile. */
  afterBeepMs: number;
  /** Without a beep: the message starts after this much quiet following the box's last words. */
  quietMs: number;
  /** The message starts at the latest this long after the machine was recognized. */
  maxWaitMs: number;
}

export const CUE_RULES: CueRules = { afterBeepMs: 400, quietMs: 3000, maxWaitMs: 30_000 };

export class MessageCue {
  private readonly rules: CueRules;
  private beepEndedAt: number | undefined;
  private toneOn = false;
  private speechOn = false;
  private lastSoundAt: number;

  /** `since`: when the call was answered (quiet counts from there until the box says something). */
  constructor(since: number, rules: CueRules = CUE_RULES) {
    this.rules = rules;
    this.lastSoundAt = since;
  }

  beep(event: BeepEvent): void {
    if (event.type === 'beep_started') {
      this.toneOn = true;
      this.beepEndedAt = undefined;
    } else {
      this.toneOn = false;
      this.beepEndedAt = event.atMs;
      this.lastSoundAt = Math.max(this.lastSoundAt, event.atMs);
    }
  }

  speechStarted(at: number): void {
    this.speechOn = true;
    // The box speaks again after its beep (a menu, a second prompt): the message waits for the next beep or quiet.
    // Speech that began before the beep ended is the beep itself, as a voice detector may hear it.
    if (this.beepEndedAt !== undefined && at > this.beepEndedAt) this.beepEndedAt = undefined;
  }

  speechEnded(at: number): void {
    this.speechOn = false;
    this.lastSoundAt = Math.max(this.lastSoundAt, at);
  }

  /** Whether the message may start now; `machineAt` is when the machine was recognized. */
  due(now: number, machineAt: number): boolean {
    if (now - machineAt >= this.rules.maxWaitMs) return true;
    if (this.toneOn) return false;
    if (this.beepEndedAt !== undefined) return now - this.beepEndedAt >= this.rules.afterBeepMs;
    return !this.speechOn && now - this.lastSoundAt >= this.rules.quietMs;
  }
}
