/**
 * Answering-machine detection for one phone call, as a call session runs it: the caller's frames go through
 * the beep detector, the listener's speech events and words go to the judge (judge.ts), and the verdict is
 * handed to the session once. After a machine, it goes on listening for the moment to leave the message
 * (cue.ts). The carrier sends a frame every 20 ms, silence included, so the frames are its clock: no timers.
 * Once the verdict is a person (or nobody can tell), or the message's moment has come, it stops looking.
 */
import { INTERNAL_SAMPLE_RATE } from '../audio/frames.ts';
import type { VoiceClock } from '../clock.ts';
import { BeepDetector, type BeepEvent } from './beep.ts';
import { CUE_RULES, MessageCue, type CueRules } from './cue.ts';
import { AnswerJudge, JUDGING_RULES, type AnsweredBy, type JudgingRules, type Verdict } from './judge.ts';

export interface ScreeningOptions {
  clock: VoiceClock;
  /** Called once with the verdict. */
  onVerdict: (verdict: Verdict) => void;
  judging?: JudgingRules;
  cue?: CueRules;
  /** The callee's language (BCP 47): its voicemail words are listened for. */
  language?: string;
}

export class AnswerScreening {
  private readonly clock: VoiceClock;
  private readonly onVerdict: (verdict: Verdict) => void;
  private readonly judge: AnswerJudge;
  private readonly answerGapMs: number;
  private readonly cue: MessageCue;
  private readonly beeps = new BeepDetector({ sampleRate: INTERNAL_SAMPLE_RATE });
  private machineAt: number | undefined;
  private lastText = '';
  /** Neither judging nor waiting for the message's moment any more. */
  private resting = false;
  private resolveCue: (() => void) | undefined;
  private readonly cued: Promise<void>;

  constructor(options: ScreeningOptions) {
    this.clock = options.clock;
    this.onVerdict = options.onVerdict;
    const now = options.clock.now();
    const judging = options.judging ?? JUDGING_RULES;
    this.judge = new AnswerJudge(now, judging, options.language);
    this.answerGapMs = judging.answerGapMs;
    this.cue = new MessageCue(now, options.cue ?? CUE_RULES);
    this.cued = new Promise((resolve) => {
      this.resolveCue = resolve;
    });
  }

  /** The verdict so far; undefined while judging. */
  get answeredBy(): AnsweredBy | undefined {
    return this.judge.verdict?.answeredBy;
  }

  /** The least silence that ends the callee's turn: the answer gap while judging, none once judged. */
  turnSilenceMs(): number {
    return this.judge.verdict ? 0 : this.answerGapMs;
  }

  /** One frame of the caller's audio at the engine's rate. */
  hear(frame: Int16Array): void {
    if (this.resting) return;
    const now = this.clock.now();
    const event = this.beeps.push(frame, now - (frame.length * 1000) / INTERNAL_SAMPLE_RATE);
    if (event) this.beep(event, now);
    this.settle(this.judge.check(now));
    if (this.machineAt !== undefined && this.cue.due(now, this.machineAt)) this.rest();
  }

  speechStarted(at: number): void {
    this.cue.speechStarted(at);
    this.settle(this.judge.speechStarted(at));
  }

  speechEnded(at: number): void {
    this.cue.speechEnded(at);
    this.settle(this.judge.speechEnded(at));
  }

  /** The recognizer's words of the turn so far. */
  heard(text: string): void {
    if (this.resting || text === this.lastText) return;
    this.lastText = text;
    this.settle(this.judge.heard(text, this.clock.now()));
  }

  /** The caller finished a turn with these words: judged before the turn is answered. */
  turnEnded(text: string): void {
    this.settle(this.judge.turnEnded(text, this.clock.now()));
  }

  /** The assistant's opening line has ended, or it has none. */
  openingEnded(): void {
    this.judge.openingEnded(this.clock.now());
  }

  /** Resolves when a machine's greeting is over and the message may start (or screening closed). */
  messageCue(): Promise<void> {
    return this.cued;
  }

  close(): void {
    this.rest();
  }

  private beep(event: BeepEvent, now: number): void {
    this.cue.beep(event);
    this.settle(this.judge.beep(event, now));
  }

  private settle(verdict: Verdict | undefined): void {
    if (!verdict) return;
    if (verdict.answeredBy === 'machine') this.machineAt = verdict.at;
    else this.rest();
    this.onVerdict(verdict);
  }

  private rest(): void {
    this.resting = true;
    this.resolveCue?.();
  }
}
