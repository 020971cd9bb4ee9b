/**
 * The listening half of the pipeline: caller audio → voice activity detection → speech-to-text → end of
 * turn. A streaming recognizer hears every frame and sends its own finals; a segment recognizer is handed
 * each utterance the detector cuts. The end of the turn is decided by turns/endpointing.ts once the caller
 * has been silent long enough; the words of every utterance since the last turn make the turn.
 */
import type { Logger } from '../logger.ts';
import { providerErrors } from '../lib/metrics.ts';
import type { SpeechToText, TranscriptionStream } from '../providers/stt/types.ts';
import type { VadFactory, VoiceActivityDetector } from '../providers/vad/types.ts';
import { INTERNAL_SAMPLE_RATE } from './audio/frames.ts';
import type { VoiceClock } from './clock.ts';
import type { VoiceSettings } from './settings.ts';
import { wordCount } from './turns/barge-in.ts';
import { endOfTurnSilenceMs } from './turns/endpointing.ts';

/** Silence the detector needs to call an utterance over; the endpointing policy waits the rest. */
const VAD_SILENCE_MS = 200;
/** Speech shorter than this is not speech (a click, a knock). */
const VAD_MIN_SPEECH_MS = 60;
/** How long a finished turn waits for a streaming recognizer's final before it goes with what it has. */
const TRANSCRIPT_WAIT_MS = 2000;

/** A turn of the caller, with the times the latency metrics are measured from (clock milliseconds). */
export interface UserTurn {
  text: string;
  startedAt: number;
  speechEndedAt: number;
  /** When the last words of the turn came from the recognizer. */
  transcribedAt: number;
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
  /** The voice detector heard the caller's utterance end (a pause, not yet the end of the turn). */
  speechEnded(at: number): void;
  /** While the caller speaks, on every frame and every new transcript. */
  progress(speech: SpeechProgress): void;
  turn(turn: UserTurn): void;
}

export interface ListenerOptions {
  stt: SpeechToText;
  vad: VadFactory;
  settings: Pick<VoiceSettings, 'endpointType' | 'endpointSensitivity' | 'sttLanguage'>;
  clock: VoiceClock;
  logger: Logger;
  handlers: ListenerHandlers;
}

export class Listener {
  private readonly options: ListenerOptions;
  private readonly detector: VoiceActivityDetector;
  private readonly stream: TranscriptionStream | undefined;
  private readonly controller = new AbortController();
  /** Milliseconds of audio pushed: the detector's time base. */
  private streamMs = 0;
  private onsetStreamMs: number | undefined;
  /** Words of the turn so far: settled pieces, and a streaming recognizer's guess at the current one. */
  private readonly pieces: string[] = [];
  private partial = '';
  private pendingTranscriptions = 0;
  private turnStartedAt: number | undefined;
  private speechEndedAt: number | undefined;
  private transcribedAt = 0;
  private endTimer: { cancel(): void } | undefined;
  private closed = false;

  constructor(options: ListenerOptions) {
    this.options = options;
    this.detector = options.vad.create({ sampleRate: INTERNAL_SAMPLE_RATE, threshold: 0.5, minSpeechMs: VAD_MIN_SPEECH_MS, minSilenceMs: VAD_SILENCE_MS }, (event) => {
      if (this.closed) return;
      if (event.type === 'speech_start') this.speechStarted(event.atMs);
      else this.speechEnded(event.atMs, event.audio);
    });
    if (options.stt.kind === 'streaming') {
      this.stream = options.stt.open({ language: options.settings.sttLanguage, sampleRate: INTERNAL_SAMPLE_RATE, signal: this.controller.signal });
      void this.readStream(this.stream);
    }
  }

  /** The words of the turn so far. */
  get text(): string {
    return [...this.pieces, this.partial].filter(Boolean).join(' ').trim();
  }

  /** One frame of caller audio. */
  push(frame: Int16Array): void {
    if (this.closed) return;
    this.stream?.write(frame);
    this.streamMs += (frame.length * 1000) / INTERNAL_SAMPLE_RATE;
    this.detector.push(frame);
    if (this.onsetStreamMs !== undefined) this.reportProgress();
  }

  /** Forgets the turn just handed out, to start the next. */
  private resetTurn(): void {
    this.pieces.length = 0;
    this.partial = '';
    this.turnStartedAt = undefined;
    this.speechEndedAt = undefined;
    this.endTimer?.cancel();
    this.endTimer = undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.endTimer?.cancel();
    // A stream ends with its provider's closing handshake (the adapter bounds the wait; what it still says is
    // not heard); aborting it would drop the connection instead. Transcriptions still running are abandoned.
    if (this.stream) this.stream.close();
    else this.controller.abort();
    this.detector.close();
  }

  private clockAt(streamMs: number): number {
    return this.options.clock.now() - (this.streamMs - streamMs);
  }

  private speechStarted(atMs: number): void {
    this.onsetStreamMs = atMs;
    this.endTimer?.cancel();
    this.endTimer = undefined;
    this.speechEndedAt = undefined;
    const at = this.clockAt(atMs);
    this.turnStartedAt ??= at;
    this.options.handlers.speechStarted(at);
  }

  private speechEnded(atMs: number, audio: Int16Array): void {
    this.onsetStreamMs = undefined;
    this.speechEndedAt = this.clockAt(atMs);
    this.options.handlers.speechEnded(this.speechEndedAt);
    const { stt, settings } = this.options;
    if (stt.kind === 'segment') {
      this.pendingTranscriptions++;
      stt.transcribe(audio, { language: settings.sttLanguage, sampleRate: INTERNAL_SAMPLE_RATE, signal: this.controller.signal })
        .then((transcript) => this.heard(transcript.text), (error: unknown) => {
          if (this.closed) return;
          providerErrors.inc({ provider: 'stt' });
          this.options.logger.warn({ err: error }, 'transcription failed');
        })
        .finally(() => {
          this.pendingTranscriptions--;
          this.scheduleEnd();
        });
    }
    this.scheduleEnd();
  }

  private heard(text: string): void {
    if (this.closed || !text.trim()) return;
    this.pieces.push(text.trim());
    this.transcribedAt = this.options.clock.now();
    this.reportProgress();
  }

  private reportProgress(): void {
    const voicedMs = this.onsetStreamMs === undefined ? 0 : this.streamMs - this.onsetStreamMs;
    const text = this.text;
    this.options.handlers.progress({ voicedMs, words: wordCount(text), text });
  }

  private async readStream(stream: TranscriptionStream): Promise<void> {
    try {
      for await (const event of stream.events) {
        if (event.type === 'partial') {
          this.partial = event.text;
          this.transcribedAt = this.options.clock.now();
          this.reportProgress();
        } else if (event.type === 'final') {
          this.partial = '';
          this.heard(event.text);
        }
        this.scheduleEnd();
      }
    } catch (error) {
      if (this.closed) return;
      providerErrors.inc({ provider: 'stt' });
      this.options.logger.warn({ err: error }, 'the speech recognizer stream failed');
    }
  }

  /** (Re)arms the end-of-turn timer once the caller is silent, from the words heard so far. */
  private scheduleEnd(): void {
    if (this.closed || this.onsetStreamMs !== undefined || this.speechEndedAt === undefined) return;
    const { clock, settings } = this.options;
    const silence = endOfTurnSilenceMs(settings, this.text);
    this.endTimer?.cancel();
    this.endTimer = clock.setTimeout(() => this.endOfTurn(), this.speechEndedAt + silence - clock.now());
  }

  private endOfTurn(): void {
    this.endTimer = undefined;
    const { clock } = this.options;
    const endedAt = this.speechEndedAt;
    if (endedAt === undefined || this.turnStartedAt === undefined) return;
    // A segment recognizer still on an utterance: its words are the turn, so the turn waits for them however
    // long a loaded machine takes (the recognizer bounds that itself); scheduleEnd runs again when they come.
    if (this.pendingTranscriptions > 0) return;
    // A streaming recognizer with a partial not yet final: wait a little for the final, then go with the words.
    const waiting = this.stream !== undefined && this.partial !== '';
    if (waiting && clock.now() - endedAt < TRANSCRIPT_WAIT_MS) {
      this.endTimer = clock.setTimeout(() => this.endOfTurn(), endedAt + TRANSCRIPT_WAIT_MS - clock.now());
      return;
    }
    const text = this.text;
    const startedAt = this.turnStartedAt;
    this.resetTurn();
    if (!text) return;
    this.options.handlers.turn({ text, startedAt, speechEndedAt: endedAt, transcribedAt: Math.max(this.transcribedAt, endedAt) });
  }
}
