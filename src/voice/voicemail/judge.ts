/**
 * Who answered a phone call, a person or a machine, judged in its first seconds from what the callee does:
 * a person says a short "hello?" (or listens to the assistant) and then stops for an answer; a voicemail
 * greeting starts at once, goes on as a monologue, says it cannot take the call and asks for a message after
 * the tone, and beeps. Pure: it is told the callee's speech, the recognizer's words, the beeps and the time,
 * and answers its verdict once.
 */
import type { BeepEvent } from './beep.ts';
import { voicemailPhrase } from './phrases.ts';

/** The contract's `answered_by`. */
export type AnsweredBy = 'human' | 'machine' | 'unknown';

export interface Verdict {
  answeredBy: AnsweredBy;
  /**
   * What decided it: a beep, the greeting's words, a greeting too long for a person; a reply that ended
   * without any of those (a person); silence, or the judging window running out (nobody can tell).
   */
  cause: 'beep' | 'phrase' | 'long_greeting' | 'reply' | 'silence' | 'timeout';
  /** When, on the clock the judge is told times in (ms). */
  at: number;
  /** The voicemail words heard, as matched. */
  phrase?: string;
}

export interface JudgingRules {
  /** A greeting with more speech than this is a machine's monologue (people say "hello?" and wait). */
  longGreetingMs: number;
  /**
   * The callee's greeting is what it says while the assistant's opening line plays, or within this long of
   * the answer: speech starting later is a reply to the assistant, judged by its words alone.
   */
  greetingStartMs: number;
  /** The greeting is over once the callee has been quiet this long. */
  greetingGapMs: number;
  /**
   * While judging, the callee's turn ends only after this much silence: a person stops for an answer, a
   * greeting pauses between its sentences for less (a turn per sentence would judge its first one alone).
   */
  answerGapMs: number;
  /** Not a word from the callee this long after the opening line: nobody can tell (`unknown`). */
  silenceMs: number;
  /** Judging stops this long after the answer at the latest (`unknown`). */
  windowMs: number;
}

export const JUDGING_RULES: JudgingRules = {
  longGreetingMs: 3000,
  greetingStartMs: 2000,
  greetingGapMs: 1500,
  answerGapMs: 800,
  silenceMs: 6000,
  windowMs: 30_000,
};

interface Greeting {
  voicedMs: number;
  /** The start of the speech in progress; undefined between utterances. */
  speakingSince: number | undefined;
  quietSince: number | undefined;
}

export class AnswerJudge {
  verdict: Verdict | undefined;
  private readonly answeredAt: number;
  private readonly rules: JudgingRules;
  private readonly language: string | undefined;
  /** When the assistant's opening line ended (at once when it has none); undefined while it plays. */
  private openingEndedAt: number | undefined;
  private spoke = false;
  /** The callee's greeting while it lasts; `over` once it has ended or the callee's first words came too late to be one. */
  private greeting: Greeting | 'over' | undefined;

  /** `language`: the callee's (BCP 47), whose voicemail words are listened for. */
  constructor(answeredAt: number, rules: JudgingRules = JUDGING_RULES, language?: string) {
    this.answeredAt = answeredAt;
    this.rules = rules;
    this.language = language;
  }

  /** The assistant's opening line has ended (played, cut short, or there was none). */
  openingEnded(at: number): void {
    this.openingEndedAt ??= at;
  }

  speechStarted(at: number): Verdict | undefined {
    if (this.verdict) return undefined;
    this.spoke = true;
    const greeting = this.greeting;
    if (greeting === undefined) {
      this.greeting = this.inGreetingTime(at) ? { voicedMs: 0, speakingSince: at, quietSince: undefined } : 'over';
    } else if (greeting !== 'over') {
      if (greeting.quietSince !== undefined && at - greeting.quietSince >= this.rules.greetingGapMs) this.greeting = 'over';
      else {
        greeting.speakingSince = at;
        greeting.quietSince = undefined;
      }
    }
    return undefined;
  }

  speechEnded(at: number): Verdict | undefined {
    const greeting = this.greeting;
    if (this.verdict || greeting === undefined || greeting === 'over' || greeting.speakingSince === undefined) return undefined;
    greeting.voicedMs += Math.max(at - greeting.speakingSince, 0);
    greeting.speakingSince = undefined;
    greeting.quietSince = at;
    return this.check(at);
  }

  /** The recognizer's words so far (a streaming recognizer's guess included). */
  heard(text: string, at: number): Verdict | undefined {
    if (this.verdict) return undefined;
    const phrase = voicemailPhrase(text, this.language);
    return phrase ? this.decide('machine', 'phrase', at, phrase) : undefined;
  }

  /** The callee finished a turn: voicemail words make it a machine; without them, a person who stopped for an answer. */
  turnEnded(text: string, at: number): Verdict | undefined {
    return this.heard(text, at) ?? (this.verdict ? undefined : this.decide('human', 'reply', at));
  }

  beep(event: BeepEvent, at: number): Verdict | undefined {
    if (this.verdict || event.type !== 'beep_started') return undefined;
    return this.decide('machine', 'beep', at);
  }

  /** The rules that depend on time alone: a greeting running long, a silent line, the end of the window. */
  check(now: number): Verdict | undefined {
    if (this.verdict) return undefined;
    const greeting = this.greeting;
    if (greeting !== undefined && greeting !== 'over') {
      const voiced = greeting.voicedMs + (greeting.speakingSince === undefined ? 0 : Math.max(now - greeting.speakingSince, 0));
      if (voiced >= this.rules.longGreetingMs) return this.decide('machine', 'long_greeting', now);
      if (greeting.quietSince !== undefined && now - greeting.quietSince >= this.rules.greetingGapMs) this.greeting = 'over';
    }
    if (!this.spoke && this.openingEndedAt !== undefined && now - Math.max(this.openingEndedAt, this.answeredAt) >= this.rules.silenceMs) {
      return this.decide('unknown', 'silence', now);
    }
    if (now - this.answeredAt >= this.rules.windowMs) return this.decide('unknown', 'timeout', now);
    return undefined;
  }

  /** Speech over the opening line, or early enough after the answer, is the callee's greeting. */
  private inGreetingTime(at: number): boolean {
    return this.openingEndedAt === undefined || at <= Math.max(this.openingEndedAt, this.answeredAt + this.rules.greetingStartMs);
  }

  private decide(answeredBy: AnsweredBy, cause: Verdict['cause'], at: number, phrase?: string): Verdict {
    this.verdict = { answeredBy, cause, at, ...(phrase ? { phrase } : {}) };
    return this.verdict;
  }
}
