/**
 * The words of the caller's turn from a streaming recognizer (Deepgram-compatible): it hears every frame and
 * sends interim results (a guess at the words so far, replaced by the next) and finals (settled words). The turn's
 * words are its finals so far and the latest guess; they are settled when no guess is pending. At the voice
 * detector's pause the recognizer is asked to settle what it has heard at once (Deepgram's `Finalize`), instead
 * of waiting for its own endpointing.
 */
import { providerErrors } from '../../lib/metrics.ts';
import type { Logger } from '../../logger.ts';
import type { StreamingSpeechToText, TranscriptionStream } from '../../providers/stt/types.ts';
import { INTERNAL_SAMPLE_RATE } from '../audio/frames.ts';

export interface StreamWords {
  text: string;
  /** No interim guess is pending: the recognizer will not change these words. */
  settled: boolean;
}

export interface StreamTranscriberOptions {
  stt: StreamingSpeechToText;
  language: string;
  logger: Logger;
  heard: (words: StreamWords) => void;
}

export class StreamTranscriber {
  private readonly options: StreamTranscriberOptions;
  private readonly stream: TranscriptionStream;
  private readonly pieces: string[] = [];
  private partial = '';
  /** Turns committed so far, and the turn each finalize() asked for, oldest first: each gets one answer, in order. */
  private turns = 0;
  private readonly finalizing: number[] = [];
  private closed = false;

  constructor(options: StreamTranscriberOptions) {
    this.options = options;
    this.stream = options.stt.open({ language: options.language, sampleRate: INTERNAL_SAMPLE_RATE, signal: new AbortController().signal });
    void this.read();
  }

  push(frame: Int16Array): void {
    if (!this.closed) this.stream.write(frame);
  }

  /** The caller paused: ask for the finals of what was heard so far. */
  paused(): void {
    if (this.closed || !this.stream.finalize) return;
    this.finalizing.push(this.turns);
    this.stream.finalize();
  }

  /** The turn was committed: its words are forgotten (a guess still pending belongs to it too). */
  reset(): void {
    this.pieces.length = 0;
    this.partial = '';
    this.turns++;
  }

  /** Ends the stream with its provider's closing handshake (the adapter bounds the wait); what it still says is not heard. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.stream.close();
  }

  private get text(): string {
    return [...this.pieces, this.partial].filter(Boolean).join(' ').trim();
  }

  private async read(): Promise<void> {
    try {
      for await (const event of this.stream.events) {
        if (this.closed) return;
        // The answer to a finalize() of a turn already committed: its words went with that turn.
        if (event.type === 'final' && event.flushed && this.finalizing.shift() !== this.turns) continue;
        if (event.type === 'partial') this.partial = event.text.trim();
        else if (event.type === 'final') {
          this.partial = '';
          if (event.text.trim()) this.pieces.push(event.text.trim());
        } else if (this.partial) {
          continue;
        }
        this.options.heard({ text: this.text, settled: this.partial === '' });
      }
    } catch (error) {
      if (this.closed) return;
      providerErrors.inc({ provider: 'stt' });
      this.options.logger.warn({ err: error }, 'the speech recognizer stream failed');
      // The turn goes on with the words it has.
      this.partial = '';
      this.options.heard({ text: this.text, settled: true });
    }
  }
}
