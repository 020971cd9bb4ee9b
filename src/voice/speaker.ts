/**
 * The speaking half of the pipeline: sentences → text-to-speech, one request per sentence → frames of the
 * internal rate → the pacer, with a mark after each sentence. The next sentence is synthesized while the
 * current one plays (one ahead, so memory stays bounded), and everything runs on the utterance's signal.
 * An utterance may also play sound made already (keypad tones) between its sentences, tracked like one.
 */
import type { Logger } from '../logger.ts';
import { providerErrors } from '../lib/metrics.ts';
import type { TextToSpeech } from '../providers/tts/types.ts';
import { FRAME_MS, INTERNAL_SAMPLE_RATE, samplesPerFrame } from './audio/frames.ts';
import { Resampler } from '../lib/audio/resampler.ts';
import { untilAborted } from '../lib/abort.ts';
import { AsyncQueue } from '../lib/async-queue.ts';
import type { VoiceClock } from './clock.ts';
import type { VoiceSettings } from './settings.ts';
import type { SentenceTrack, SpeechHandle } from './speech.ts';
import type { OutputPacer } from './transports/pacer.ts';

/** When the first sound of an utterance was asked for, came from the synthesizer, and went out. */
export interface SpeechTimings {
  ttsRequestedAt: number | undefined;
  ttsFirstChunkAt: number | undefined;
  firstFrameSentAt: number | undefined;
}

export interface SpeakerOptions {
  tts: TextToSpeech;
  pacer: OutputPacer;
  settings: Pick<VoiceSettings, 'voiceId' | 'ttsLanguage' | 'speechSpeed'>;
  clock: VoiceClock;
  logger: Logger;
}

/** Sound without words at the internal rate (keypad tones), played in its place among the sentences. */
export interface PreparedSound {
  samples: Int16Array;
  /** Hears the track the sound plays as, whose mark says when it has been heard. */
  onTrack: (track: SentenceTrack) => void;
}

/** What an utterance plays, in order. */
export type SpeechItem = string | PreparedSound;

/** Audio of one track, as the player takes it. */
interface TrackAudio {
  readonly track: SentenceTrack;
  readonly sampleRate: number;
  audio(): AsyncGenerator<Int16Array>;
}

class Prepared implements TrackAudio {
  readonly track: SentenceTrack;
  readonly sampleRate = INTERNAL_SAMPLE_RATE;
  private readonly samples: Int16Array;

  constructor(track: SentenceTrack, samples: Int16Array) {
    this.track = track;
    this.samples = samples;
  }

  // eslint-disable-next-line @typescript-eslint/require-await
  async *audio(): AsyncGenerator<Int16Array> {
    yield this.samples;
  }
}

/** A sentence being synthesized: its chunks buffer as they come, for the player to take in order. */
class Synthesis implements TrackAudio {
  readonly track: SentenceTrack;
  readonly sampleRate: number;
  private readonly chunks: Int16Array[] = [];
  private finished = false;
  private wake: (() => void) | undefined;

  constructor(track: SentenceTrack, speaker: SpeakerOptions, signal: AbortSignal, timings: SpeechTimings) {
    this.track = track;
    const { settings, clock } = speaker;
    timings.ttsRequestedAt ??= clock.now();
    const speech = speaker.tts.synthesize({
      text: track.text, voice: settings.voiceId ?? '', language: settings.ttsLanguage, speed: settings.speechSpeed, signal,
    });
    this.sampleRate = speech.sampleRate;
    void (async () => {
      try {
        for await (const chunk of speech.chunks) {
          if (signal.aborted) break;
          timings.ttsFirstChunkAt ??= clock.now();
          this.chunks.push(chunk);
          this.wake?.();
        }
      } catch (error) {
        if (!signal.aborted) {
          providerErrors.inc({ provider: 'tts' });
          speaker.logger.warn({ err: error, tts: speaker.tts.name }, 'speech synthesis failed; the sentence is skipped');
        }
      } finally {
        this.finished = true;
        this.wake?.();
      }
    })();
  }

  async *audio(): AsyncGenerator<Int16Array> {
    for (;;) {
      const chunk = this.chunks.shift();
      if (chunk) {
        yield chunk;
        continue;
      }
      if (this.finished) return;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}

export class Speaker {
  private readonly options: SpeakerOptions;
  private readonly frameSamples = samplesPerFrame(INTERNAL_SAMPLE_RATE);
  /** Resamplers by synthesizer rate, reset per sentence: their kernels are built once per call. */
  private readonly resamplers = new Map<number, Resampler>();

  constructor(options: SpeakerOptions) {
    this.options = options;
  }

  /**
   * Speaks the sentences (and plays the sounds) pushed to the returned queue, in order, until it ends or the
   * handle is interrupted; `done` resolves once the last frame and mark are queued (the handle is sealed then).
   */
  utterance(handle: SpeechHandle): { sentences: AsyncQueue<SpeechItem>; done: Promise<SpeechTimings> } {
    const sentences = new AsyncQueue<SpeechItem>({ signal: handle.signal });
    const timings: SpeechTimings = { ttsRequestedAt: undefined, ttsFirstChunkAt: undefined, firstFrameSentAt: undefined };
    const done = this.play(handle, sentences, timings).then(() => {
      handle.seal();
      return timings;
    });
    return { sentences, done };
  }

  private async play(handle: SpeechHandle, sentences: AsyncQueue<SpeechItem>, timings: SpeechTimings): Promise<void> {
    const iterator = sentences[Symbol.asyncIterator]();
    const start = async (): Promise<TrackAudio | undefined> => {
      const next = await iterator.next();
      if (next.done || handle.signal.aborted) return undefined;
      const item = next.value;
      if (typeof item === 'string') return new Synthesis(handle.addSentence(item), this.options, handle.signal, timings);
      const track = handle.addSentence('');
      item.onTrack(track);
      return new Prepared(track, item.samples);
    };
    let upcoming = start();
    // A held draft synthesizes its first sentence while it waits; nothing is queued for the caller before.
    await untilAborted(handle.released, handle.signal).catch(() => undefined);
    for (;;) {
      const current = await upcoming;
      if (!current || handle.signal.aborted) return;
      upcoming = start();
      await this.playSentence(handle, current, timings);
    }
  }

  private async playSentence(handle: SpeechHandle, synthesis: TrackAudio, timings: SpeechTimings): Promise<void> {
    const { pacer, clock } = this.options;
    const { signal } = handle;
    const resampler = this.resamplerFor(synthesis.sampleRate);
    const onSent = (dueAt: number) => {
      timings.firstFrameSentAt ??= clock.now();
      handle.frameSent(synthesis.track, dueAt);
    };
    const frame = new Int16Array(this.frameSamples);
    let filled = 0;
    for await (const chunk of synthesis.audio()) {
      const samples = resampler ? resampler.process(chunk) : chunk;
      for (let offset = 0; offset < samples.length;) {
        const take = Math.min(samples.length - offset, frame.length - filled);
        frame.set(samples.subarray(offset, offset + take), filled);
        filled += take;
        offset += take;
        if (filled === frame.length) {
          synthesis.track.queuedMs += FRAME_MS;
          await pacer.write(frame.slice(), onSent, signal);
          filled = 0;
        }
        if (signal.aborted) return;
      }
    }
    if (signal.aborted) return;
    if (filled > 0) {
      frame.fill(0, filled);
      synthesis.track.queuedMs += FRAME_MS;
      await pacer.write(frame.slice(), onSent, signal);
    }
    synthesis.track.complete = true;
    if (!signal.aborted) pacer.mark(synthesis.track.mark);
  }

  private resamplerFor(rate: number): Resampler | undefined {
    if (rate === INTERNAL_SAMPLE_RATE) return undefined;
    let resampler = this.resamplers.get(rate);
    if (!resampler) {
      resampler = new Resampler(rate, INTERNAL_SAMPLE_RATE);
      this.resamplers.set(rate, resampler);
    }
    resampler.reset();
    return resampler;
  }
}
