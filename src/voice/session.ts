/**
 * CallSession: one call, from the stream's start to its end. It owns the transport, the history and the state
 * (listening, thinking, speaking), and runs one utterance of the assistant at a time through a SpeechHandle;
 * its lifecycle (session-lifecycle.ts) keeps the timers (silence, re-engagement, the call's time limit) and
 * the ending. Barge-in is a method call: `interrupt()` stops the handle (model request, tools and synthesis
 * through its one signal) and clears the audio queued here and at the far side; the caller's speech over the
 * assistant is followed by session-barge-in.ts. Replies to the caller's words are drafted at their pause
 * (session-drafts.ts).
 */
import type { HistoryEntry } from '../agent/turn-input.ts';
import { openingLine, voicemailLine } from '../agent/turn-input.ts';
import type { EndReason, TurnMetrics } from './hooks.ts';
import type { Listener, SpeechProgress, UserTurn } from './listening/listener.ts';
import type { SessionLine } from './line.ts';
import { BargeIn, type FloorUtterance } from './session-barge-in.ts';
import { SessionLifecycle } from './session-lifecycle.ts';
import { speakReply, speakText, type ReplyOutcome } from './reply.ts';
import { DraftReplies, type Draft } from './session-drafts.ts';
import { Handover } from './session-handover.ts';
import type { SessionParts, SessionState } from './session-parts.ts';
import type { SpeechTimings } from './speaker.ts';
import { SpeechHandle, untilHeard } from './speech.ts';
import { replyMetrics } from './turn-record.ts';
import { Keypad } from './turns/keypad.ts';
import type { Verdict } from './voicemail/judge.ts';
import { AnswerScreening } from './voicemail/screening.ts';

export { GOODBYES, goodbyesIn, MARK_GRACE_MS, REENGAGE_INSTRUCTION, reengageInstructionIn, type SessionParts, type SessionState } from './session-parts.ts';

interface Utterance extends FloorUtterance {
  /** Settles once the utterance is committed to the history. */
  committed: Promise<void>;
}

export class CallSession {
  readonly history: HistoryEntry[] = [];
  private readonly parts: SessionParts;
  private readonly life: SessionLifecycle;
  private readonly screening: AnswerScreening | undefined;
  private listener: Listener | undefined;
  private current: Utterance | undefined;
  private readonly bargeIn: BargeIn;
  private readonly drafts: DraftReplies;
  /** Counts the caller's pauses, so a draft that waited for the utterance before it knows whether it is still wanted. */
  private pauses = 0;
  private readonly handover: Handover;
  private utterances = 0;
  private readonly line: SessionLine;
  readonly ended: Promise<EndReason>;

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.life = new SessionLifecycle(parts, {
      wrapUp: async (farewell) => {
        await this.quiet();
        // The stream may have ended meanwhile (the caller hung up first): then there is no one to say it to.
        if (farewell && !this.life.finished) await this.say(farewell, { interruptible: false });
      },
      drop: (reason) => {
        this.current?.handle.abandon(new Error('The media stream ended.'));
        return this.handover.transferring ? 'transferred' : reason;
      },
      // The caller's last words count as userTurn would hear them: not a backchannel, not during a handover.
      lastWords: async () => (this.handover.active || this.bargeIn.overheard ? undefined : this.listener?.finish()),
      silent: () => !this.floorHeld && !this.handover.active && !this.current,
      reengage: (instruction) => this.life.guard(this.reply({ history: this.history.slice(), message: instruction })),
      release: () => {
        this.drafts.close();
        this.handover.cancel();
        this.listener?.close();
        this.line.keypad.close();
        this.screening?.close();
      },
    }, 'the call session failed');
    this.ended = this.life.ended;
    this.bargeIn = new BargeIn(parts, () => this.current);
    const line: SessionLine = { keypad: new Keypad(parts.clock, (keys) => this.keypadTurn(keys)), phone: parts.phone, assistants: parts.assistants };
    this.line = line;
    this.handover = new Handover({
      parts, line,
      ending: () => this.life.ending,
      quiet: () => this.quiet(),
      say: (text, options) => this.say(text, options),
      history: () => this.history.slice(),
      reply: (message) => this.reply({ history: this.history.slice(), message }),
      end: (reason) => this.life.end(reason),
      report: (turn) => this.life.report(turn),
      armSilence: () => this.life.armSilence(),
    });
    this.screening = parts.screen ? new AnswerScreening({ clock: parts.clock, language: parts.settings.sttLanguage, onVerdict: (verdict) => this.judged(verdict) }) : undefined;
    this.drafts = new DraftReplies((text, handle) => speakReply(this.parts.reply, handle, { history: this.history.slice(), message: text }, this.line));
  }

  /** Thinking until the current utterance's first audio goes out, speaking from then on. */
  get state(): SessionState {
    if (this.life.finished) return 'ended';
    if (!this.current) return 'listening';
    return this.current.handle.sentences.some((sentence) => sentence.sentMs > 0) ? 'speaking' : 'thinking';
  }

  /** Starts listening and the timers; the assistant opens unless it waits for the customer. */
  start(): void {
    const { parts } = this;
    this.listener = parts.createListener({
      speechStarted: (at) => this.speechStarted(at),
      speechEnded: (at) => this.screening?.speechEnded(at),
      progress: (speech) => this.progress(speech),
      wantsWords: () => this.wantsWords(),
      leastSilenceMs: () => this.screening?.turnSilenceMs() ?? 0,
      draft: (text) => this.draft(text, ++this.pauses),
      discardDraft: () => {
        this.pauses++;
        this.drafts.discard();
      },
      turn: (turn) => this.userTurn(turn),
    });
    this.life.startLimit();
    parts.hooks.onAnswered?.(this.life.answer.at);
    const opening = openingLine(parts.reply.profile, parts.reply.variables);
    if (!parts.settings.waitForCustomer && opening) {
      this.life.guard(this.say(opening, { interruptible: parts.settings.allowInterruptions }).then(() => this.screening?.openingEnded()));
    } else {
      this.screening?.openingEnded();
      this.life.armSilence();
    }
  }

  /** One frame of caller audio. */
  hear(frame: Int16Array): void {
    this.screening?.hear(frame);
    this.listener?.push(frame);
  }

  /** The caller pressed a key (a DTMF digit): to the keypad entry a tool collects, or the caller's input. */
  keypress(key: string): void {
    if (this.life.ending) return;
    this.life.callerSpoke(this.parts.clock.now());
    this.line.keypad.press(key);
    if (!this.current) this.life.armSilence();
  }

  /** A mark came back from the far side. */
  markHeard(name: string): void {
    this.current?.handle.markHeard(name);
  }

  /** Stops the assistant's current utterance at once (at the time its audio was held, when it was). */
  interrupt(): void {
    this.bargeIn.interrupt();
  }

  /**
   * Ends the call: the current utterance stops (an end-call reply has already finished its closing words),
   * `farewell` is said when given, then the session closes with `reason`.
   */
  hangUp(reason: EndReason, farewell?: string): Promise<void> {
    return this.life.hangUp(reason, farewell);
  }

  /** The stream ended (the caller hung up, or it broke the protocol) or the engine failed: no more words, it closes now. */
  endNow(reason: EndReason): Promise<void> {
    return this.life.endNow(reason);
  }

  private speechStarted(at: number): void {
    this.screening?.speechStarted(at);
    this.life.callerSpoke(at);
    this.life.cancelSilence();
    this.bargeIn.speechStarted();
  }

  private progress(speech: SpeechProgress): void {
    this.screening?.heard(speech.text);
    this.bargeIn.progress(speech);
  }

  /** Words before the caller pauses matter when they may stop the assistant or tell a machine's greeting. */
  private wantsWords(): boolean {
    const speaking = this.current !== undefined && !this.current.handle.interrupted;
    const judging = this.screening !== undefined && this.screening.answeredBy === undefined;
    return this.bargeIn.holding || (speaking && this.parts.settings.minInterruptWords !== null) || judging;
  }

  /**
   * The caller paused with words: the reply is drafted and held, unless anything else holds the floor. An
   * utterance the caller interrupted is committed first, so the draft sees what of it was heard.
   */
  private draft(text: string, pause: number): void {
    const { current } = this;
    if (this.floorHeld || this.handover.active || this.bargeIn.overheard || (current && !current.handle.interrupted) || pause !== this.pauses) return;
    if (current) void current.committed.then(() => this.draft(text, pause));
    else this.drafts.draft(text, this.history.length);
  }

  /** A turn without words (a cough, a knock): nothing to answer; audio held for it goes on where the caller left it. */
  private falseStart(): void {
    this.drafts.discard();
    this.bargeIn.falseStart();
    if (!this.current) this.life.armSilence();
  }

  private userTurn(turn: UserTurn): void {
    this.pauses++;
    if (!turn.text) return this.falseStart();
    this.life.callerSpoke(this.parts.clock.now());
    const overheard = this.bargeIn.turnEnded();
    // Words that began over the assistant and did not interrupt it (a backchannel, or interruptions are off),
    // and words said while the call is being handed over.
    const heard = !this.life.ending && !this.handover.active && !overheard;
    if (heard) this.life.report({ role: 'user', text: turn.text, startedAt: turn.startedAt, endedAt: turn.speechEndedAt, interrupted: false, metrics: {} });
    // The first turn of an outbound call is judged before it is answered: a machine's greeting is never answered.
    this.screening?.turnEnded(turn.text);
    const drafted = this.drafts.take(turn.text, this.history.length);
    if (!heard || this.floorHeld) {
      drafted.draft?.handle.abandon(new Error('The turn is not answered.'));
      return;
    }
    const history = this.history.slice();
    this.history.push({ role: 'user', content: turn.text });
    this.life.guard(this.reply({ history, message: turn.text }, turn, true, drafted));
  }

  /**
   * Keys the caller typed when no tool was collecting them: a turn of the caller like words, written so the
   * model and the transcript see what was pressed. It interrupts the assistant as speech would, or waits for
   * an utterance that may not be interrupted.
   */
  private keypadTurn(keys: string): void {
    if (this.floorHeld || this.handover.active) return;
    const now = this.parts.clock.now();
    const text = `[pressed ${keys}]`;
    this.life.report({ role: 'user', text, startedAt: now, endedAt: now, interrupted: false, metrics: {} });
    const history = this.history.slice();
    this.history.push({ role: 'user', content: text });
    this.life.guard(this.reply({ history, message: text }, undefined, this.current?.interruptible !== false));
  }

  /** Answers `input`; `drafted`: the reply drafted at the caller's pause, when it answers this turn, and the drafts discarded. */
  private async reply(
    input: { history: HistoryEntry[]; message: string }, turn?: UserTurn, interruptCurrent = true, drafted: { draft: Draft | undefined; discarded: number } = { draft: undefined, discarded: 0 },
  ): Promise<void> {
    const previous = this.current;
    if (previous) {
      if (interruptCurrent) this.interrupt();
      await previous.committed;
    }
    const { draft, discarded } = drafted;
    if (this.floorHeld) {
      draft?.handle.abandon(new Error('The call is ending.'));
      return;
    }
    let outcome: ReplyOutcome | undefined;
    await this.utter(this.parts.settings.allowInterruptions, async (handle) => {
      outcome = await (draft ? draft.outcome : speakReply(this.parts.reply, handle, input, this.line));
      return outcome.timings;
    }, (timings) => replyMetrics(timings, outcome, turn && { ...turn, preemptive: draft !== undefined, discarded }), draft?.handle);
    if (outcome?.handoff) await this.handover.run(outcome.handoff);
    else if (outcome?.endCall) await this.hangUp('assistant_end_call');
  }

  private say(text: string, options: { interruptible: boolean }): Promise<void> {
    return this.utter(options.interruptible, (handle) => speakText(this.parts.reply.speaker, handle, text), (timings) => replyMetrics(timings, undefined, undefined));
  }

  /** Runs one utterance to its end (heard or interrupted) and commits what the caller heard; `drafted`: a held draft it releases. */
  private async utter(
    interruptible: boolean,
    run: (handle: SpeechHandle) => Promise<SpeechTimings>,
    metricsOf: (timings: SpeechTimings) => TurnMetrics,
    drafted?: SpeechHandle,
  ): Promise<void> {
    const { clock } = this.parts;
    const id = `u${++this.utterances}`;
    const handle = drafted ?? new SpeechHandle(id);
    let commit: () => void = () => undefined;
    const utterance: Utterance = { handle, interruptible, committed: new Promise((resolve) => { commit = resolve; }) };
    this.current = utterance;
    this.life.cancelSilence();
    const startedAt = clock.now();
    drafted?.release(id);
    try {
      const timings = await run(handle);
      await untilHeard(handle, clock, this.parts.output);
      const text = handle.heardText(clock.now());
      if (text) {
        this.history.push({ role: 'assistant', content: text });
        const metrics = metricsOf(timings);
        this.life.report({ role: 'assistant', text, startedAt, endedAt: clock.now(), interrupted: handle.interrupted, metrics });
      }
    } finally {
      if (this.current === utterance) this.current = undefined;
      this.life.anyoneSpokeAt = clock.now();
      commit();
      this.life.armSilence();
    }
  }

  /** Ending, or a machine answered: nothing is answered and no silence is filled any more. */
  private get floorHeld(): boolean {
    return this.life.ending || this.screening?.answeredBy === 'machine';
  }

  /**
   * The verdict on who answered, reported once. A machine is hung up on (`end_call_on_voicemail`, or nothing
   * to say), or else holds the floor until its greeting is over and its beep has sounded; then the message is
   * left, not interruptible (the box records it), and the call ends.
   */
  private judged(verdict: Verdict): void {
    this.parts.hooks.onAnsweredBy?.(verdict);
    if (verdict.answeredBy !== 'machine' || this.life.ending) return;
    const { settings, reply } = this.parts;
    const message = settings.endCallOnVoicemail ? '' : voicemailLine(reply.profile, reply.variables, settings.voicemailMessage);
    const leave = async () => {
      await this.quiet();
      await this.screening?.messageCue();
      await this.hangUp('voicemail', message);
    };
    this.life.guard(message ? leave() : this.hangUp('voicemail'));
  }

  /** Stops the silence timer and what is being said, once it is committed. */
  private async quiet(): Promise<void> {
    this.life.cancelSilence();
    const current = this.current;
    if (current) {
      this.interrupt();
      await current.committed;
    }
  }
}
