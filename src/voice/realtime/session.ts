/**
 * RealtimeCallSession: one call of an `engine_type: multimodal` assistant, a speech-to-speech model in place
 * of the pipeline, with the same surface as CallSession (hear, markHeard, hangUp, endNow, state, ended) and
 * the same hooks. The model's own voice activity detection takes the caller's turns; the session plays the
 * model's audio through the pacer (playback.ts), stops it on barge-in and truncates the model's history at
 * what the caller heard, and runs the assistant's tools (the AgentTool objects of the pipeline). The call's
 * timers (the time limit, the silence rules) and its ending are the lifecycle both sessions share
 * (session-lifecycle.ts).
 */
import type { AgentPorts } from '../../agent/ports.ts';
import type { AgentProfile } from '../../agent/profile.ts';
import { dialogueTools, openingLine } from '../../agent/turn-input.ts';
import { providerErrors } from '../../lib/metrics.ts';
import type { RealtimeConnection, RealtimeEvent, RealtimeModel } from '../../providers/realtime/types.ts';
import { INTERNAL_SAMPLE_RATE } from '../audio/frames.ts';
import { Resampler } from '../../lib/audio/resampler.ts';
import type { EndReason } from '../hooks.ts';
import { SessionLifecycle, type LifecycleParts } from '../session-lifecycle.ts';
import type { SessionState } from '../session-parts.ts';
import type { OutputPacer } from '../transports/pacer.ts';
import { realtimeOptions, sayVerbatim } from './options.ts';
import { RealtimePlayback, type HeardPart, type SpokenItem } from './playback.ts';
import { RealtimeTools } from './tools.ts';

/**
 * The pacer's room for a speech-to-speech model: providers send an answer's audio faster than it plays, and
 * the events behind it (the caller's barge-in) must not wait for playback. A minute of audio, about 2 MB.
 */
export const REALTIME_OUTPUT_FRAMES = 3000;
/** The longest the engine waits for a farewell to be spoken before it closes anyway. */
const FAREWELL_WAIT_MS = 15_000;

export interface RealtimeSessionParts extends LifecycleParts {
  model: RealtimeModel;
  modelName: string;
  profile: AgentProfile;
  ports: AgentPorts;
  variables: Record<string, unknown>;
  pacer: OutputPacer;
}

/** One answer of the model. */
interface Reply {
  startedAt: number;
  /** When the caller's turn it answers ended, for the latency the caller felt; cleared once measured. */
  answers: number | undefined;
  interrupted: boolean;
  done: boolean;
  /** It called tools: once they are done the model speaks about their results. */
  madeCalls: boolean;
}

export class RealtimeCallSession {
  private readonly parts: RealtimeSessionParts;
  private playback: RealtimePlayback | undefined;
  private readonly tools: RealtimeTools;
  private readonly controller = new AbortController();
  private readonly life: SessionLifecycle;
  private connection: RealtimeConnection | undefined;
  private upsampler: Resampler | undefined;
  private readonly replies = new Map<string, Reply>();
  private activeReply: string | undefined;
  /** A response was asked for and has not started yet. */
  private awaitingReply = false;
  private readonly speech = new Map<string, { startedAt: number; endedAt: number | undefined }>();
  private lastSpeechEnd: number | undefined;
  private idleWaiters: (() => void)[] = [];
  readonly ended: Promise<EndReason>;

  constructor(parts: RealtimeSessionParts) {
    this.parts = parts;
    this.life = new SessionLifecycle(parts, {
      wrapUp: async (farewell) => {
        this.stopSpeaking(true);
        if (farewell && this.connection && !this.life.finished) {
          const spoken = this.untilIdle();
          this.ask(sayVerbatim(farewell));
          await spoken;
        }
      },
      drop: (reason) => {
        this.commitHeard(this.playback?.interrupt(false) ?? []);
        return reason;
      },
      silent: () => this.idle,
      reengage: (instruction) => this.ask(instruction),
      release: () => {
        this.playback?.close();
        this.controller.abort();
        this.connection?.close();
        for (const resolve of this.idleWaiters.splice(0)) resolve();
      },
    }, 'the realtime call session failed');
    this.ended = this.life.ended;
    this.tools = new RealtimeTools(dialogueTools(parts.ports, parts.profile), this.controller.signal);
  }

  get state(): SessionState {
    if (this.life.finished) return 'ended';
    if (this.playback?.playing.some((item) => item.sentMs > 0)) return 'speaking';
    return this.idle ? 'listening' : 'thinking';
  }

  /** Connects to the model and serves the call until it ends. */
  start(): void {
    this.life.startLimit();
    this.life.guard(this.run());
  }

  /** One frame of caller audio at the internal rate. */
  hear(frame: Int16Array): void {
    if (this.connection && this.upsampler && !this.life.finished) this.connection.appendAudio(this.upsampler.process(frame));
  }

  markHeard(name: string): void {
    this.playback?.markHeard(name);
  }

  /** The caller heard an item of an answer to its end. */
  private heard(item: SpokenItem): void {
    const reply = this.replies.get(item.responseId);
    const now = this.parts.clock.now();
    if (item.text.trim()) {
      const latency = reply?.answers !== undefined && item.firstDueAt !== undefined ? item.firstDueAt - reply.answers : undefined;
      if (reply) reply.answers = undefined;
      this.life.report({ role: 'assistant', text: item.text.trim(), startedAt: reply?.startedAt ?? now, endedAt: now, interrupted: false, metrics: latency === undefined ? {} : { end_of_speech_to_first_audio_ms: latency } });
    }
    this.settle();
  }

  /** Ends the call: what plays stops, `farewell` is said when given, then the session closes with `reason`. */
  hangUp(reason: EndReason, farewell?: string): Promise<void> {
    return this.life.hangUp(reason, farewell);
  }

  /** The stream ended or the engine failed: no more words, it closes now. */
  endNow(reason: EndReason): Promise<void> {
    return this.life.endNow(reason);
  }

  private async run(): Promise<void> {
    const { parts } = this;
    try {
      this.connection = await parts.model.connect(realtimeOptions(parts, this.tools.definitions, this.controller.signal));
    } catch (error) {
      if (this.life.finished) return;
      providerErrors.inc({ provider: 'realtime' });
      parts.logger.warn({ err: error }, 'the realtime model could not be reached');
      await this.endNow('error');
      return;
    }
    if (this.life.finished) return;
    this.upsampler = new Resampler(INTERNAL_SAMPLE_RATE, this.connection.sampleRate);
    const playback = new RealtimePlayback({ pacer: parts.pacer, clock: parts.clock, modelRate: this.connection.sampleRate, onHeard: (item) => this.heard(item) });
    this.playback = playback;
    parts.hooks.onAnswered?.(this.life.answer.at);
    const opening = openingLine(parts.profile, parts.variables);
    if (!parts.settings.waitForCustomer && opening) this.ask(sayVerbatim(opening));
    else this.life.armSilence();
    for await (const event of this.connection.events) await this.handle(event, playback);
    // The events end when the session closes them; otherwise the provider went away.
    if (!this.life.finished) await this.endNow('error');
  }

  private async handle(event: RealtimeEvent, playback: RealtimePlayback): Promise<void> {
    const now = this.parts.clock.now();
    switch (event.type) {
      case 'speech_started':
        this.speech.set(event.itemId, { startedAt: now, endedAt: undefined });
        this.life.callerSpoke(now);
        this.life.cancelSilence();
        if (this.parts.settings.allowInterruptions && !this.life.ending) this.stopSpeaking(true);
        return;
      case 'speech_stopped': {
        const speech = this.speech.get(event.itemId);
        if (speech) speech.endedAt = now;
        this.lastSpeechEnd = now;
        this.life.callerSpokeAt = now;
        return;
      }
      case 'user_transcript': {
        const speech = this.speech.get(event.itemId);
        this.speech.delete(event.itemId);
        if (!event.text.trim() || this.life.ending) return;
        this.life.report({ role: 'user', text: event.text.trim(), startedAt: speech?.startedAt ?? now, endedAt: speech?.endedAt ?? now, interrupted: false, metrics: {} });
        return;
      }
      case 'response_started':
        this.awaitingReply = false;
        this.activeReply = event.responseId;
        this.replies.set(event.responseId, { startedAt: now, answers: this.lastSpeechEnd, interrupted: false, done: false, madeCalls: false });
        this.lastSpeechEnd = undefined;
        this.life.cancelSilence();
        return;
      case 'audio':
        if (!this.replies.get(event.responseId)?.interrupted) await playback.audio(event.responseId, event.itemId, event.pcm);
        return;
      case 'transcript_delta':
        if (!this.replies.get(event.responseId)?.interrupted) playback.item(event.responseId, event.itemId).text += event.text;
        return;
      case 'transcript_done':
        if (!this.replies.get(event.responseId)?.interrupted) playback.item(event.responseId, event.itemId).text = event.text;
        return;
      case 'function_call':
        this.callTool(event.responseId, event.callId, event.name, event.arguments);
        return;
      case 'response_done': {
        if (this.activeReply === event.responseId) this.activeReply = undefined;
        const reply = this.replies.get(event.responseId);
        if (reply) reply.done = true;
        if (event.status === 'failed') {
          providerErrors.inc({ provider: 'realtime' });
          this.parts.logger.warn({ reason: event.reason }, 'the realtime model failed to answer');
        }
        for (const item of playback.playing) if (item.responseId === event.responseId) await playback.complete(item.itemId);
        this.continueAfterTools(event.responseId);
        this.settle();
        return;
      }
      case 'error':
        this.parts.logger.info({ code: event.code, reason: event.message }, 'the realtime model reported a problem');
        return;
    }
  }

  /** Runs a tool the model asked for, hands it the result, and lets it go on once the answer's calls are done. */
  private callTool(responseId: string, callId: string, name: string, rawArguments: string): void {
    const reply = this.replies.get(responseId);
    if (reply) reply.madeCalls = true;
    const deliver = (output: string) => {
      if (!this.life.finished) this.connection?.sendFunctionResult(callId, output);
    };
    this.life.guard(this.tools.run(responseId, name, rawArguments, deliver).then(() => this.continueAfterTools(responseId)));
  }

  /** Once an answer that called tools is done and every result is in, the model speaks about the results. */
  private continueAfterTools(responseId: string): void {
    const reply = this.replies.get(responseId);
    if (!reply?.done || this.tools.busy(responseId) || !reply.madeCalls) return;
    reply.madeCalls = false;
    // The caller spoke meanwhile and the model already answers that, with the results in its history.
    if (this.activeReply !== undefined || this.life.finished) return;
    this.ask();
  }

  /** Asks the model to answer now; `instructions` for this answer only. */
  private ask(instructions?: string): void {
    this.awaitingReply = true;
    this.life.cancelSilence();
    this.connection?.createResponse(instructions);
  }

  /** Barge-in or hang-up: what plays stops, the answer is cancelled, and the model keeps only what was heard. */
  private stopSpeaking(clear: boolean): void {
    if (!this.playback) return;
    const active = this.activeReply === undefined ? undefined : this.replies.get(this.activeReply);
    const parts = this.playback.interrupt(clear && (this.playback.playing.length > 0 || active !== undefined));
    if (active) {
      active.interrupted = true;
      this.connection?.cancelResponse();
    }
    for (const part of parts) this.connection?.truncate(part.item.itemId, part.playedMs);
    this.commitHeard(parts);
  }

  private commitHeard(parts: HeardPart[]): void {
    const now = this.parts.clock.now();
    for (const part of parts) {
      const reply = this.replies.get(part.item.responseId);
      if (reply) reply.interrupted = true;
      if (part.text) this.life.report({ role: 'assistant', text: part.text, startedAt: reply?.startedAt ?? now, endedAt: now, interrupted: true, metrics: {} });
    }
  }

  /** Nothing plays, nothing is being answered and no tool runs. */
  private get idle(): boolean {
    return !this.awaitingReply && this.activeReply === undefined && !this.tools.busy() && (this.playback?.playing.length ?? 0) === 0;
  }

  /** Called when something finished: once idle, an end-call ends the call and the silence clocks run again. */
  private settle(): void {
    if (!this.idle || this.life.finished) return;
    this.life.anyoneSpokeAt = this.parts.clock.now();
    // Every answer so far is over: heard, cut off, or followed by the answer about its tools' results.
    this.replies.clear();
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
    // The model called end-call: the call ends once its closing words have been heard.
    if (this.tools.endRequested && !this.life.ending) {
      this.life.guard(this.hangUp('assistant_end_call'));
      return;
    }
    this.life.armSilence();
  }

  private untilIdle(): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.parts.clock.setTimeout(resolve, FAREWELL_WAIT_MS);
      this.idleWaiters.push(() => {
        timer.cancel();
        resolve();
      });
    });
  }
}
