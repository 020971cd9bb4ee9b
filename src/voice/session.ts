/**
 * CallSession: one call, from the stream's start to its end. It owns the transport, the history and the state
 * (listening, thinking, speaking), and runs one utterance of the assistant at a time through a SpeechHandle;
 * its lifecycle (session-lifecycle.ts) keeps the timers (silence, re-engagement, the call's time limit) and
 * the ending. Barge-in is a method call: `interrupt()` stops the handle (model request, tools and synthesis
 * through its one signal) and clears the audio queued here and at the far side.
 */
import type { HistoryEntry } from '../agent/turn-input.ts';
import { openingLine, voicemailLine } from '../agent/turn-input.ts';
import type { EndReason, TurnMetrics } from './hooks.ts';
import type { Listener, SpeechProgress, UserTurn } from './pipeline.ts';
import type { SessionLine } from './line.ts';
import { SessionLifecycle } from './session-lifecycle.ts';
import { speakReply, speakText, type ReplyOutcome } from './reply.ts';
import { Handover } from './session-handover.ts';
import type { SessionParts, SessionState } from './session-parts.ts';
import type { SpeechTimings } from './speaker.ts';
import { MARK_GRACE_MS, SpeechHandle } from './speech.ts';
import { shouldInterrupt } from './turns/barge-in.ts';
import { Keypad } from './turns/keypad.ts';
import type { Verdict } from './voicemail/judge.ts';
import { AnswerScreening } from './voicemail/screening.ts';

export { GOODBYES, goodbyesIn, MARK_GRACE_MS, REENGAGE_INSTRUCTION, reengageInstructionIn, type SessionParts, type SessionState } from './session-parts.ts';

interface Utterance {
  handle: SpeechHandle;
  interruptible: boolean;
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
  /** The caller's speech while the assistant had the floor, and whether it interrupted. */
  private overlap: { interrupted: boolean } | undefined;
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
      silent: () => !this.floorHeld && !this.handover.active && !this.current,
      reengage: (instruction) => this.life.guard(this.reply({ history: this.history.slice(), message: instruction })),
      release: () => {
        this.handover.cancel();
        this.listener?.close();
        this.line.keypad.close();
        this.screening?.close();
      },
    }, 'the call session failed');
    this.ended = this.life.ended;
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

  /** Stops the assistant's current utterance at once. */
  interrupt(): void {
    const utterance = this.current;
    if (!utterance || utterance.handle.interrupted) return;
    utterance.handle.interrupt(this.parts.clock.now());
    this.parts.clearOutput();
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
    if (this.current && !this.current.handle.interrupted) this.overlap = { interrupted: false };
  }

  private progress(speech: SpeechProgress): void {
    this.screening?.heard(speech.text);
    const { overlap, current } = this;
    if (!overlap || overlap.interrupted || !current?.interruptible || current.handle.interrupted) return;
    if (shouldInterrupt(this.parts.settings, speech)) {
      overlap.interrupted = true;
      this.interrupt();
    }
  }

  private userTurn(turn: UserTurn): void {
    this.life.callerSpoke(this.parts.clock.now());
    const overlap = this.overlap;
    this.overlap = undefined;
    // Words that began over the assistant and did not interrupt it (a backchannel, or interruptions are off),
    // and words said while the call is being handed over.
    const heard = !this.life.ending && !this.handover.active && !(overlap && !overlap.interrupted);
    if (heard) this.life.report({ role: 'user', text: turn.text, startedAt: turn.startedAt, endedAt: turn.speechEndedAt, interrupted: false, metrics: {} });
    // The first turn of an outbound call is judged before it is answered: a machine's greeting is never answered.
    this.screening?.turnEnded(turn.text);
    if (!heard || this.floorHeld) return;
    const history = this.history.slice();
    this.history.push({ role: 'user', content: turn.text });
    this.life.guard(this.reply({ history, message: turn.text }, turn));
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

  private async reply(input: { history: HistoryEntry[]; message: string }, turn?: UserTurn, interruptCurrent = true): Promise<void> {
    const previous = this.current;
    if (previous) {
      if (interruptCurrent) this.interrupt();
      await previous.committed;
    }
    if (this.floorHeld) return;
    let outcome: ReplyOutcome | undefined;
    await this.utter(this.parts.settings.allowInterruptions, async (handle) => {
      outcome = await speakReply(this.parts.reply, handle, input, this.line);
      return outcome.timings;
    }, (timings) => ({
      ...(turn && timings.firstFrameSentAt !== undefined ? { end_of_speech_to_first_audio_ms: timings.firstFrameSentAt - turn.speechEndedAt } : {}),
      ...(turn ? { stt_final_delay_ms: turn.transcribedAt - turn.speechEndedAt } : {}),
      ...(outcome?.firstTokenAt !== undefined && outcome.llmRequestedAt !== undefined ? { llm_first_token_ms: outcome.firstTokenAt - outcome.llmRequestedAt } : {}),
    }));
    if (outcome?.handoff) await this.handover.run(outcome.handoff);
    else if (outcome?.endCall) await this.hangUp('assistant_end_call');
  }

  private say(text: string, options: { interruptible: boolean }): Promise<void> {
    return this.utter(options.interruptible, (handle) => speakText(this.parts.reply.speaker, handle, text), () => ({}));
  }

  /** Runs one utterance to its end (heard or interrupted) and commits what the caller heard. */
  private async utter(
    interruptible: boolean,
    run: (handle: SpeechHandle) => Promise<SpeechTimings>,
    metricsOf: (timings: SpeechTimings) => TurnMetrics,
  ): Promise<void> {
    const { clock } = this.parts;
    const handle = new SpeechHandle(`u${++this.utterances}`);
    let commit: () => void = () => undefined;
    const utterance: Utterance = { handle, interruptible, committed: new Promise((resolve) => { commit = resolve; }) };
    this.current = utterance;
    this.life.cancelSilence();
    const startedAt = clock.now();
    try {
      const timings = await run(handle);
      await this.untilHeard(handle);
      const text = handle.heardText(clock.now());
      if (text) {
        this.history.push({ role: 'assistant', content: text });
        const metrics = metricsOf(timings);
        if (timings.ttsFirstChunkAt !== undefined && timings.ttsRequestedAt !== undefined) metrics.tts_first_byte_ms = timings.ttsFirstChunkAt - timings.ttsRequestedAt;
        this.life.report({ role: 'assistant', text, startedAt, endedAt: clock.now(), interrupted: handle.interrupted, metrics });
      }
    } finally {
      if (this.current === utterance) this.current = undefined;
      this.life.anyoneSpokeAt = clock.now();
      commit();
      this.life.armSilence();
    }
  }

  /** Waits for the marks of everything sent, or for the time it should take plus a grace when marks are lost. */
  private async untilHeard(handle: SpeechHandle): Promise<void> {
    const { clock } = this.parts;
    const timer = clock.setTimeout(() => handle.abandon(new Error('Marks did not come back.')), this.parts.pendingOutputMs() + MARK_GRACE_MS);
    try {
      await handle.finished();
    } finally {
      timer.cancel();
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
    this.life.guard(message ? this.leaveMessage(message) : this.hangUp('voicemail'));
  }

  private async leaveMessage(message: string): Promise<void> {
    await this.quiet();
    await this.screening?.messageCue();
    await this.hangUp('voicemail', message);
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
