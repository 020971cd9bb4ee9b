/**
 * The audio of the lines an assistant says word for word on every call (its opening line, the engine's
 * goodbyes), kept by a media replica once synthesized and replayed after: a greeting starts as soon as the call
 * is up instead of after a synthesis (Piper's first sentence takes 150-500 ms alone, seconds on a loaded
 * machine, while the callee waits in silence). Kept by synthesizer, voice, language, speed and text, at most
 * `maxBytes` of audio, the least recently heard dropped first. A synthesis that is stopped or fails is not kept.
 */
import { ChunkQueue } from '../providers/tts/chunk-queue.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from '../providers/tts/types.ts';

interface Kept {
  sampleRate: number;
  chunks: Int16Array[];
  bytes: number;
}

/** 32 MB: about three hours of Piper's 22 kHz speech, hundreds of opening lines. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export class SpokenLineCache {
  private readonly kept = new Map<string, Kept>();
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.maxBytes = maxBytes;
  }

  /**
   * `tts` for one call, answering a sentence of one of `lines` from what is kept (keeping it on its first
   * synthesis) and synthesizing every other sentence as `tts` does.
   */
  speaking(tts: TextToSpeech, lines: string[]): TextToSpeech {
    const fixed = lines.filter((line) => line.trim() !== '');
    return {
      name: tts.name,
      code: tts.code,
      defaultVoice: tts.defaultVoice,
      synthesize: (request) => {
        if (!fixed.some((line) => line.includes(request.text))) return tts.synthesize(request);
        const key = [tts.code, request.voice, request.language, request.speed, request.text].join('\u0000');
        const kept = this.kept.get(key);
        if (kept) {
          // Most recently heard last: the first in the map is the first to go.
          this.kept.delete(key);
          this.kept.set(key, kept);
          return { sampleRate: kept.sampleRate, chunks: replay(kept.chunks, request.signal) };
        }
        const speech = tts.synthesize(request);
        return { sampleRate: speech.sampleRate, chunks: this.keeping(key, speech, request) };
      },
    };
  }

  /** The synthesis's chunks as they come, kept once all of them have come. */
  private async *keeping(key: string, speech: SynthesizedSpeech, request: SynthesisRequest): AsyncGenerator<Int16Array> {
    const chunks: Int16Array[] = [];
    for await (const chunk of speech.chunks) {
      chunks.push(chunk);
      yield chunk;
    }
    if (request.signal.aborted || chunks.length === 0) return;
    this.keep(key, { sampleRate: speech.sampleRate, chunks, bytes: chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0) });
  }

  private keep(key: string, entry: Kept): void {
    if (entry.bytes > this.maxBytes || this.kept.has(key)) return;
    this.kept.set(key, entry);
    this.bytes += entry.bytes;
    for (const [oldest, kept] of this.kept) {
      if (this.bytes <= this.maxBytes) break;
      this.kept.delete(oldest);
      this.bytes -= kept.bytes;
    }
  }
}

/** Kept chunks, as a synthesis hands them over; dropped at once when the signal aborts. */
function replay(chunks: Int16Array[], signal: AbortSignal): ChunkQueue {
  const queue = new ChunkQueue();
  if (!signal.aborted) for (const chunk of chunks) queue.push(chunk);
  queue.end();
  signal.addEventListener('abort', () => queue.clear(), { once: true });
  return queue;
}
