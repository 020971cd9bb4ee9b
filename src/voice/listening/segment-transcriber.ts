/**
 * The words of the caller's turn from a segment recognizer (Whisper, OpenAI-compatible transcription): the
 * turn's audio is kept from its first syllable, and the whole of it, pauses included, is decoded again as it
 * grows, one request at a time. So the words are those of the turn heard whole, never pieces of it glued
 * together, and they are ready when the caller stops:
 * - while the caller speaks and words are wanted before the pause (a barge-in counted in words, a machine's
 *   greeting to judge), a local recognizer (`incremental`) re-decodes the turn every PROVISIONAL_EVERY_MS of new
 *   audio, at `provisional` priority (the pool runs them only when no final needs the worker);
 * - once the caller's level falls quiet for QUIET_MS after their voice, the turn so far is decoded at `final`
 *   priority at once, before the voice detector has confirmed the pause (100 ms or more later): when it does,
 *   the words are there or nearly;
 * - at the detector's pause, if no decode has heard past the end of the voice, one is asked then; if the one
 *   that did heard too little of the silence after it to write a full stop (Whisper sets its punctuation by
 *   what follows the last word, and the turn policy reads it), the turn is decoded again once CONFIRM_MS of
 *   silence have followed the voice.
 * A hosted recognizer, paid by the request, is asked once per pause, and only once the silence has lasted
 * HOSTED_PAUSE_MS: a breath between two words is not worth an upload.
 * Times are stream milliseconds (audio pushed), which the listener turns into clock times.
 */
import { providerErrors } from '../../lib/metrics.ts';
import type { Logger } from '../../logger.ts';
import type { SegmentSpeechToText, TranscriptionPriority } from '../../providers/stt/types.ts';
import { INTERNAL_SAMPLE_RATE } from '../audio/frames.ts';
import type { TurnAudio } from './turn-audio.ts';

/** New audio between two provisional decodes of a turn while the caller speaks. */
const PROVISIONAL_EVERY_MS = 600;
/** Quiet after the voice that asks for the final words before the voice detector's pause (longer than most gaps between words). */
const QUIET_MS = 80;
/** A 20 ms frame this far below the turn's loudest (about -26 dB) is quiet. */
const QUIET_LEVEL = 0.05 ** 2;
/** The silence after the voice before a hosted recognizer is asked for the turn's words. */
const HOSTED_PAUSE_MS = 200;
/** The silence after the voice a decode must have heard for its want of a full stop to be believed. */
const CONFIRM_MS = 200;
/** The end of a sentence, as the recognizer writes it. */
const SENTENCE_END = /[.!?]["')\]]*$/;
/** Whisper hears at most 30 s: a longer turn's words so far are settled at a pause and the audio starts again. */
const SETTLE_AFTER_MS = 20_000;

export interface HeardWords {
  text: string;
  /** Stream time up to which the words cover the turn. */
  untilMs: number;
}

export interface SegmentTranscriberOptions {
  stt: SegmentSpeechToText;
  /** The turn's audio, which the listener keeps. */
  audio: TurnAudio;
  language: string;
  logger: Logger;
  /** New words of the turn; called in the order the audio they cover grows. */
  heard: (words: HeardWords) => void;
  /** Whether words are wanted while the caller still speaks: each guess costs a decode of the whole turn. */
  wantsWords: () => boolean;
}

interface Request {
  untilMs: number;
  priority: TranscriptionPriority;
  controller: AbortController;
}

export class SegmentTranscriber {
  private readonly options: SegmentTranscriberOptions;
  /** Words settled from the turn's earlier audio (a turn past SETTLE_AFTER_MS). */
  private prefix = '';
  private loudest = 0;
  private quietMs = 0;
  private voicedSinceRequest = false;
  private lastProvisionalAt = 0;
  private running: Request | undefined;
  /** A final decode asked while one was running: it goes as soon as that one answers. */
  private finalWanted = false;
  /** The newest words handed out, and the stream time they cover up to. */
  private heardText = '';
  private heardUntil = -1;
  /** A decode asked for once the audio reaches this stream time: a hosted recognizer's pause, or a confirmation. */
  private pendingDecode: number | undefined;
  /** Where the voice ended at the detector's current pause; undefined while the caller speaks. */
  private pausedAt: number | undefined;
  private closed = false;

  constructor(options: SegmentTranscriberOptions) {
    this.options = options;
  }

  /** The stream time the newest words cover up to; -1 before any. */
  get coveredUntil(): number {
    return this.heardUntil;
  }

  /** A frame of the turn of `energy` (mean square), ending at stream time `endMs`, said while the detector hears speech. */
  spoken(energy: number, endMs: number, frameMs: number): void {
    this.pendingDecode = undefined;
    this.pausedAt = undefined;
    if (!this.options.stt.incremental) return;
    this.loudest = Math.max(this.loudest, energy);
    if (energy < this.loudest * QUIET_LEVEL) {
      this.quietMs += frameMs;
      if (this.quietMs >= QUIET_MS && this.voicedSinceRequest) this.request('final', endMs);
      return;
    }
    this.quietMs = 0;
    this.voicedSinceRequest = true;
    if (endMs - this.lastProvisionalAt >= PROVISIONAL_EVERY_MS && !this.running && this.options.wantsWords()) {
      this.lastProvisionalAt = endMs;
      this.request('provisional', endMs);
    }
  }

  /** A frame of silence during the turn, ending at `endMs`: a decode asked for at a later time may be due. */
  silent(endMs: number): void {
    if (this.pendingDecode === undefined || endMs < this.pendingDecode) return;
    this.pendingDecode = undefined;
    this.request('final', endMs);
  }

  /** A turn begins with speech at `onsetMs`. */
  started(onsetMs: number): void {
    this.lastProvisionalAt = onsetMs;
  }

  /** The detector heard the caller stop; their voice ended at `voiceEndMs`, and the audio runs to `nowMs`. */
  paused(voiceEndMs: number, nowMs: number): void {
    this.pausedAt = voiceEndMs;
    if (!this.options.stt.incremental) {
      this.pendingDecode = voiceEndMs + HOSTED_PAUSE_MS;
      return;
    }
    if (this.heardUntil >= voiceEndMs) {
      if (!this.confirmIfUnsure()) this.settleIfLong(voiceEndMs);
      return;
    }
    if (this.running && this.running.untilMs >= voiceEndMs && this.running.priority === 'final') return;
    this.request('final', nowMs);
  }

  /**
   * The line ended with the voice at `voiceEndMs` and the audio at `nowMs`: the turn is decoded now (a hosted
   * recognizer too, without its pause), unless words or a final decode already hear to the end of the voice.
   */
  flush(voiceEndMs: number, nowMs: number): void {
    this.pausedAt = voiceEndMs;
    this.pendingDecode = undefined;
    if (this.heardUntil >= voiceEndMs) return;
    if (this.running && this.running.untilMs >= voiceEndMs && this.running.priority === 'final') return;
    this.request('final', nowMs);
  }

  /**
   * Asks for the turn again once CONFIRM_MS of silence have followed the voice, when the words heard to the
   * pause lack a full stop and were decoded with less of that silence; whether it did.
   */
  private confirmIfUnsure(): boolean {
    const voiceEnd = this.pausedAt;
    if (!this.options.stt.incremental || voiceEnd === undefined || this.heardUntil < voiceEnd) return false;
    if (this.heardUntil - voiceEnd >= CONFIRM_MS || SENTENCE_END.test(this.heardText)) return false;
    this.pendingDecode = voiceEnd + CONFIRM_MS;
    return true;
  }

  /** The turn was committed (or came to nothing): forget its audio and words. */
  reset(): void {
    this.running?.controller.abort(new Error('The turn is over.'));
    this.running = undefined;
    this.finalWanted = false;
    this.pendingDecode = undefined;
    this.pausedAt = undefined;
    this.prefix = '';
    this.loudest = 0;
    this.quietMs = 0;
    this.voicedSinceRequest = false;
    this.heardUntil = -1;
    this.heardText = '';
  }

  close(): void {
    this.closed = true;
    this.running?.controller.abort(new Error('The call has ended.'));
  }

  private request(priority: TranscriptionPriority, untilMs: number): void {
    if (this.closed) return;
    if (this.running) {
      if (priority === 'provisional' || this.running.priority === 'final') {
        if (priority === 'final') this.finalWanted = true;
        return;
      }
      // A final goes before the provisional guess still waiting: it would only be stale when it came.
      this.running.controller.abort(new Error('A newer decode of the turn is on its way.'));
    }
    this.voicedSinceRequest = false;
    this.finalWanted = false;
    const request: Request = { untilMs, priority, controller: new AbortController() };
    this.running = request;
    const { stt, language, logger } = this.options;
    stt.transcribe(this.options.audio.audio(), { language, sampleRate: INTERNAL_SAMPLE_RATE, signal: request.controller.signal, priority })
      .then((transcript) => {
        if (this.running === request) this.running = undefined;
        if (this.closed || request.controller.signal.aborted || untilMs <= this.heardUntil) return;
        this.heardUntil = untilMs;
        this.heardText = [this.prefix, transcript.text.trim()].filter(Boolean).join(' ');
        this.options.heard({ text: this.heardText, untilMs });
        this.confirmIfUnsure();
      }, (error: unknown) => {
        if (this.running === request) this.running = undefined;
        // A guess the recognizer had no room for is only skipped: the next one, or the final, comes anyway.
        if (this.closed || request.controller.signal.aborted || priority === 'provisional') return;
        providerErrors.inc({ provider: 'stt' });
        logger.warn({ err: error }, 'transcription failed');
        // The turn goes on with the words it has: a recognizer that fails must not hold it open for ever.
        if (priority === 'final' && untilMs > this.heardUntil) {
          this.heardUntil = untilMs;
          this.heardText = this.prefix;
          this.options.heard({ text: this.prefix, untilMs });
        }
      })
      .finally(() => {
        if (this.finalWanted && !this.closed && !this.running) this.request('final', this.options.audio.lastAt ?? untilMs);
      });
  }

  /**
   * A turn past SETTLE_AFTER_MS keeps its words so far, heard to `voiceEndMs`, and its audio starts again after
   * them, so Whisper's 30 s always hold what is decoded. Done at a pause, where no word is cut in two.
   */
  private settleIfLong(voiceEndMs: number): void {
    const first = this.options.audio.firstAt;
    if (first === undefined || voiceEndMs - first < SETTLE_AFTER_MS || this.running) return;
    this.prefix = this.heardText;
    this.options.audio.settle(voiceEndMs);
  }
}
