/**
 * The listening part of the pipeline (pipeline.ts names the whole path): caller audio → voice activity
 * detection → the turn's words (segment-transcriber.ts or stream-transcriber.ts) and, at each pause, the turn
 * model's score of the voice → the turn policy (turns/turn-policy.ts), which says when to draft the reply and
 * when the turn is over. The listener does the I/O the pure policy asks for: the requests, the timers, and
 * telling the session.
 */
import type { Logger } from '../../logger.ts';
import type { SpeechToText } from '../../providers/stt/types.ts';
import type { TurnDetector } from '../../providers/turn/types.ts';
import type { VadFactory, VoiceActivityDetector } from '../../providers/vad/types.ts';
import { INTERNAL_SAMPLE_RATE } from '../audio/frames.ts';
import type { VoiceClock } from '../clock.ts';
import type { VoiceSettings } from '../settings.ts';
import { wordCount } from '../turns/barge-in.ts';
import { IDLE_TURN, stepTurn, turnSilence, type TurnAction, type TurnInput, type TurnState, type TurnVerdict } from '../turns/turn-policy.ts';
import { SegmentTranscriber } from './segment-transcriber.ts';
import { StreamTranscriber } from './stream-transcriber.ts';
import { TurnAudio } from './turn-audio.ts';

/**
 * Silence the detector needs before it calls the caller paused. Short: the pause only starts the turn
 * policy's clock, which decides how long a pause ends the turn.
 */
const VAD_SILENCE_MS = 100;
/** Speech shorter than this is not speech (a click, a knock). */
const VAD_MIN_SPEECH_MS = 60;
/** The turn model hears the last 8 s of the turn. */
const TURN_MODEL_MS = 8000;
/**
 * The silence after the voice the turn model hears: its score of the same words moves with it (measured with
 * Smart Turn v3.2, a finished sentence scored 0.46 after 100 ms and 0.96 after 200 ms, while broken-off
 * thoughts stayed low; past 400 ms those rise too), so it always gets the same.
 */
const SCORED_SILENCE_MS = 200;
/** How soon a turn due to end looks again while the detector has not yet judged the audio up to its end. */
const BEHIND_RECHECK_MS = 10;
/**
 * A line that has sent no audio for this long has stopped, not stalled: its silence counts by the clock again.
 * Shorter gaps are the network or a busy sender holding frames back, and arrive as a burst.
 */
const STALLED_LINE_MS = 1000;
/**
 * How long the end of the line waits for the words of the caller's last turn. A local Whisper decodes a turn of
 * a few seconds in a few hundred milliseconds (about a second on a loaded machine), a hosted recognizer answers
 * one request, a streaming one its finalize in less; a recognizer that hangs holds only the call's record, not
 * the line nor the bill (the call ends when the line did).
 */
export const LAST_WORDS_GRACE_MS = 1500;

/** A committed turn of the caller, with the times the latency metrics are measured from (clock milliseconds). */
export interface UserTurn {
  /** Empty when the pause ended nothing said: a noise, a cough, a false start. */
  text: string;
  startedAt: number;
  speechEndedAt: number;
  /** When the words of the turn, as committed, came from the recognizer. */
  transcribedAt: number;
  /** When the policy committed it: the end of speech plus the silence it waited. */
  committedAt: number;
  /** The turn model's score at the last pause, when it gave one. */
  score: number | undefined;
  verdict: TurnVerdict;
}

/** The caller's speech in progress, as barge-in weighs it. */
export interface SpeechProgress {
  voicedMs: number;
  words: number;
  /** The words of the turn so far. */
  text: string;
}

export interface ListenerHandlers {
  speechStarted(at: number): void;
  /** The voice detector heard the caller stop (a pause, not yet the end of the turn). */
  speechEnded(at: number): void;
  /** While the caller speaks, on every frame and every new transcript. */
  progress(speech: SpeechProgress): void;
  /**
   * Whether the words of the caller's speech are of use before they pause (barge-in counted in words, a machine's
   * greeting to judge); a local recognizer then decodes the turn as it grows, at the cost of a decode each time.
   */
  wantsWords(): boolean;
  /** The least silence that ends a turn now (the policy's own waits when it returns 0 or is absent). */
  leastSilenceMs?(): number;
  /** The caller has paused with these words: draft the reply now and hold it until the turn is committed. */
  draft(text: string): void;
  /** The caller went on: the held draft answers words that are not the turn. */
  discardDraft(): void;
  turn(turn: UserTurn): void;
}

export interface ListenerOptions {
  stt: SpeechToText;
  vad: VadFactory;
  /** The turn model; without it the policy decides by silence and words. */
  turn?: TurnDetector | undefined;
  settings: Pick<VoiceSettings, 'endpointType' | 'endpointSensitivity' | 'sttLanguage'>;
  clock: VoiceClock;
  logger: Logger;
  handlers: ListenerHandlers;
}

export class Listener {
  private readonly options: ListenerOptions;
  private readonly detector: VoiceActivityDetector;
  private readonly audio = new TurnAudio();
  private readonly segments: SegmentTranscriber | undefined;
  private readonly stream: StreamTranscriber | undefined;
  /** Milliseconds of audio pushed: the detector's time base. */
  private streamMs = 0;
  /** When the last frame arrived, on the clock: the end of the audio heard so far. */
  private lastFrameAt: number;
  private onsetStreamMs: number | undefined;
  /** Stream time where the voice ended at the current pause; undefined while the caller speaks. */
  private voiceEndMs: number | undefined;
  private state: TurnState = IDLE_TURN;
  /** The words of the turn so far, as the recognizer last gave them. */
  private text = '';
  private pauses = 0;
  private scoring: AbortController | undefined;
  /** A pause the turn model is to hear once the audio reaches `atMs` (stream time). */
  private scoreDue: { pause: number; atMs: number } | undefined;
  private wakeTimer: { cancel(): void } | undefined;
  /** The line has ended: words still coming finish the last turn (finish()), nothing else is decided. */
  private finishing: { voiceEndMs: number; cut: boolean; done: () => void } | undefined;
  private closed = false;

  constructor(options: ListenerOptions) {
    this.options = options;
    this.lastFrameAt = options.clock.now();
    const { stt, settings, logger } = options;
    this.detector = options.vad.create({ sampleRate: INTERNAL_SAMPLE_RATE, threshold: 0.5, minSpeechMs: VAD_MIN_SPEECH_MS, minSilenceMs: VAD_SILENCE_MS }, (event) => {
      if (this.closed || this.finishing) return;
      if (event.type === 'speech_start') this.speechStarted(event.atMs);
      else this.speechEnded(event.atMs);
    });
    if (stt.kind === 'streaming') {
      this.stream = new StreamTranscriber({ stt, language: settings.sttLanguage, logger, heard: (words) => this.heard(words.text, true, words.settled) });
    } else {
      this.segments = new SegmentTranscriber({
        stt, audio: this.audio, language: settings.sttLanguage, logger, wantsWords: () => options.handlers.wantsWords(),
        heard: (words) => this.heard(words.text, this.voiceEndMs !== undefined && words.untilMs >= this.voiceEndMs, true),
      });
    }
  }

  /** One frame of caller audio. */
  push(frame: Int16Array): void {
    if (this.closed || this.finishing) return;
    const frameMs = (frame.length * 1000) / INTERNAL_SAMPLE_RATE;
    this.streamMs += frameMs;
    this.lastFrameAt = this.options.clock.now();
    this.stream?.push(frame);
    const energy = this.audio.push(frame, this.streamMs);
    if (this.audio.inTurn && this.onsetStreamMs !== undefined) this.segments?.spoken(energy, this.streamMs, frameMs);
    else if (this.audio.inTurn) this.segments?.silent(this.streamMs);
    if (this.scoreDue && this.streamMs >= this.scoreDue.atMs) this.score();
    this.detector.push(frame);
    if (this.onsetStreamMs !== undefined) this.reportProgress();
  }

  /**
   * The line ended: the caller's turn, when one was heard (speech then a pause, or speech the hang-up cut), with
   * its words, waited for at most `graceMs`; undefined when no turn was open. Only the words: no draft, no
   * reply. Call close() after it.
   */
  async finish(graceMs = LAST_WORDS_GRACE_MS): Promise<UserTurn | undefined> {
    if (this.closed || this.finishing || !this.state.open) return undefined;
    const cut = this.state.speaking;
    const voiceEndMs = cut ? this.streamMs : this.voiceEndMs ?? this.streamMs;
    const { clock } = this.options;
    this.wakeTimer?.cancel();
    this.scoring?.abort(new Error('The call has ended.'));
    let timer: { cancel(): void } | undefined;
    await new Promise<void>((resolve) => {
      this.finishing = { voiceEndMs, cut, done: resolve };
      if (this.lastWordsIn()) return resolve();
      timer = clock.setTimeout(resolve, graceMs);
      // The recognizer is asked for the words up to the end, unless a decode that hears them is on its way.
      this.voiceEndMs = voiceEndMs;
      this.segments?.flush(voiceEndMs, this.streamMs);
      if (cut) this.stream?.paused();
    });
    timer?.cancel();
    const { state } = this;
    const now = clock.now();
    return {
      text: this.text.trim(), startedAt: state.startedAt, speechEndedAt: this.clockAt(voiceEndMs), transcribedAt: state.transcribedAt || now,
      committedAt: now, score: state.score, verdict: state.score === undefined ? 'no_score' : turnSilence(this.options.settings, state).verdict,
    };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wakeTimer?.cancel();
    this.scoring?.abort(new Error('The call has ended.'));
    this.stream?.close();
    this.segments?.close();
    this.detector.close();
  }

  private clockAt(streamMs: number): number {
    return this.lastFrameAt - (this.streamMs - streamMs);
  }

  /**
   * The time of the last audio the detector has judged: a silence lasts only as long as the audio heard to be
   * silent. Neither a line that delivers its frames late (they come in a burst after a gap) nor a detector on a
   * busy thread, behind by a few hundred milliseconds, lets a pause inside a thought pass for the end of the
   * turn while the caller's next words wait to be heard.
   */
  private judgedUntil(): number {
    const now = this.options.clock.now();
    const heardUntil = now - this.lastFrameAt >= STALLED_LINE_MS ? now : this.lastFrameAt;
    return heardUntil - (this.detector.pendingMs?.() ?? 0);
  }

  private speechStarted(atMs: number): void {
    this.onsetStreamMs = atMs;
    this.voiceEndMs = undefined;
    this.scoring?.abort(new Error('The caller went on.'));
    this.scoring = undefined;
    this.scoreDue = undefined;
    if (!this.audio.inTurn) {
      this.audio.start(atMs);
      this.segments?.started(atMs);
    }
    const at = this.clockAt(atMs);
    this.step({ type: 'speech', at });
    this.options.handlers.speechStarted(at);
  }

  private speechEnded(atMs: number): void {
    this.onsetStreamMs = undefined;
    this.voiceEndMs = atMs;
    const voiceEndedAt = this.clockAt(atMs);
    this.options.handlers.speechEnded(voiceEndedAt);
    const scoring = this.options.turn !== undefined && this.audio.inTurn;
    if (scoring) this.scoreDue = { pause: ++this.pauses, atMs: atMs + SCORED_SILENCE_MS };
    this.step({ type: 'pause', at: this.options.clock.now(), voiceEndedAt, scoring });
    if (this.scoreDue && this.streamMs >= this.scoreDue.atMs) this.score();
    this.segments?.paused(atMs, this.streamMs);
    this.stream?.paused();
    // Words decoded before the detector confirmed the pause may already reach past the voice.
    if (this.segments && this.segments.coveredUntil >= atMs) this.step({ type: 'words', at: this.options.clock.now(), text: this.text, covers: true, settled: true });
  }

  /** Asks the turn model about the pause whose audio is now in. */
  private score(): void {
    const { turn } = this.options;
    const due = this.scoreDue;
    this.scoreDue = undefined;
    if (!turn || !due) return;
    const { pause } = due;
    const controller = new AbortController();
    this.scoring = controller;
    turn.score(this.audio.audio(TURN_MODEL_MS, due.atMs), controller.signal).then(
      (score) => {
        if (pause === this.pauses && !this.closed) this.step({ type: 'score', at: this.options.clock.now(), score });
      },
      (error: unknown) => {
        if (controller.signal.aborted || this.closed) return;
        this.options.logger.warn({ err: error }, 'the turn model could not score a pause; deciding by the silence');
        if (pause === this.pauses) this.step({ type: 'score', at: this.options.clock.now(), score: undefined });
      },
    );
  }

  /** Whether the words of the last turn have come: heard to the end of the voice, and settled. */
  private lastWordsIn(): boolean {
    const { finishing } = this;
    if (!finishing) return false;
    if (this.segments) return this.segments.coveredUntil >= finishing.voiceEndMs;
    return !finishing.cut && this.state.covers && this.state.settled;
  }

  private heard(text: string, covers: boolean, settled: boolean): void {
    if (this.closed) return;
    this.text = text;
    if (this.finishing) {
      this.state = { ...this.state, text, covers, settled, transcribedAt: this.options.clock.now() };
      if (covers && settled) this.finishing.done();
      return;
    }
    this.step({ type: 'words', at: this.options.clock.now(), text, covers, settled });
    this.reportProgress();
  }

  private reportProgress(): void {
    const voicedMs = this.onsetStreamMs === undefined ? 0 : this.streamMs - this.onsetStreamMs;
    this.options.handlers.progress({ voicedMs, words: wordCount(this.text), text: this.text });
  }

  private step(input: TurnInput): void {
    if (this.finishing) return;
    const leastSilenceMs = this.options.handlers.leastSilenceMs?.() ?? 0;
    const settings = leastSilenceMs > 0 ? { ...this.options.settings, minSilenceMs: leastSilenceMs } : this.options.settings;
    const { state, actions } = stepTurn(settings, this.state, input, this.judgedUntil());
    this.state = state;
    for (const action of actions) this.act(action);
  }

  private act(action: TurnAction): void {
    const { handlers, clock } = this.options;
    switch (action.type) {
      case 'draft':
        handlers.draft(action.text);
        return;
      case 'discard_draft':
        handlers.discardDraft();
        return;
      case 'wake':
        this.wakeTimer?.cancel();
        // A due time already past means the detector is behind (the tick below said so): look again shortly.
        this.wakeTimer = clock.setTimeout(() => {
          this.wakeTimer = undefined;
          if (!this.closed) this.step({ type: 'tick', at: clock.now() });
        }, Math.max(action.at - clock.now(), BEHIND_RECHECK_MS));
        return;
      case 'commit':
        this.wakeTimer?.cancel();
        this.wakeTimer = undefined;
        this.scoring = undefined;
        this.scoreDue = undefined;
        this.text = '';
        this.audio.end();
        this.segments?.reset();
        this.stream?.reset();
        handlers.turn({
          text: action.text.trim(), startedAt: action.startedAt, speechEndedAt: action.voiceEndedAt, transcribedAt: action.transcribedAt,
          committedAt: clock.now(), score: action.score, verdict: action.verdict,
        });
    }
  }
}
