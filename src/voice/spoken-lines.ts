/**
 * The audio of the lines an assistant says word for word on every call (its opening line, its fillers, the engine's
 * goodbyes), kept by a media replica once synthesized and replayed after: a greeting starts as soon as the call
 * is up instead of after a synthesis (Piper's first sentence takes 150-500 ms alone, seconds on a loaded
 * machine, while the callee waits in silence). Calls that ask for a line while it is being synthesized hear
 * that one synthesis as it comes, rather than each making its own (a campaign's first calls are answered
 * together). Kept by synthesizer, voice, language, speed and text, at most `maxBytes` of audio, the least
 * recently heard dropped first. A synthesis that is stopped (every call hearing it gone) or fails is not kept.
 */
import { AsyncQueue } from '../lib/async-queue.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from '../providers/tts/types.ts';

interface Kept {
  sampleRate: number;
  chunks: Int16Array[];
  bytes: number;
}

/** A line being synthesized, and the calls hearing it. */
interface Making {
  sampleRate: number;
  chunks: Int16Array[];
  listeners: Set<AsyncQueue<Int16Array>>;
  stop: AbortController;
}

/** 32 MB: about three hours of Piper's 22 kHz speech, hundreds of opening lines. */
const DEFAULT_MAX_BYTES = 32 * 1024 * 1024;

export class SpokenLineCache {
  private readonly kept = new Map<string, Kept>();
  private readonly making = new Map<string, Making>();
  private readonly maxBytes: number;
  private bytes = 0;

  constructor(maxBytes = DEFAULT_MAX_BYTES) {
    this.maxBytes = maxBytes;
  }

  /**
   * `tts` for one call, answering a sentence of one of `lines` from what is kept or being made (making it
   * otherwise) and synthesizing every other sentence as `tts` does.
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
        // A synthesis every listener left is ending: a new call starts another.
        const current = this.making.get(key);
        const making = current && !current.stop.signal.aborted ? current : this.make(key, tts, request);
        return { sampleRate: making.sampleRate, chunks: listen(making, request.signal) };
      },
    };
  }

  /** Starts the line's synthesis, stopped only when every call listening to it is gone. */
  private make(key: string, tts: TextToSpeech, request: SynthesisRequest): Making {
    const stop = new AbortController();
    const speech: SynthesizedSpeech = tts.synthesize({ ...request, signal: stop.signal });
    const making: Making = { sampleRate: speech.sampleRate, chunks: [], listeners: new Set(), stop };
    this.making.set(key, making);
    void (async () => {
      let error: Error | undefined;
      try {
        for await (const chunk of speech.chunks) {
          making.chunks.push(chunk);
          for (const listener of making.listeners) listener.push(chunk);
        }
      } catch (failure) {
        error = failure instanceof Error ? failure : new Error(String(failure));
      }
      if (this.making.get(key) === making) this.making.delete(key);
      for (const listener of making.listeners) listener.end(error);
      if (!error && !stop.signal.aborted && making.chunks.length > 0) {
        this.keep(key, { sampleRate: making.sampleRate, chunks: making.chunks, bytes: making.chunks.reduce((sum, chunk) => sum + chunk.byteLength, 0) });
      }
    })();
    return making;
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
function replay(chunks: Int16Array[], signal: AbortSignal): AsyncQueue<Int16Array> {
  const queue = new AsyncQueue<Int16Array>();
  if (!signal.aborted) for (const chunk of chunks) queue.push(chunk);
  queue.end();
  signal.addEventListener('abort', () => queue.clear(), { once: true });
  return queue;
}

/** The line being made, from its first chunk, as it comes; a call that leaves stops the synthesis if it was the last. */
function listen(making: Making, signal: AbortSignal): AsyncQueue<Int16Array> {
  const queue = new AsyncQueue<Int16Array>();
  for (const chunk of making.chunks) queue.push(chunk);
  making.listeners.add(queue);
  const leave = () => {
    queue.clear();
    making.listeners.delete(queue);
    if (making.listeners.size === 0) making.stop.abort();
  };
  if (signal.aborted) leave();
  else signal.addEventListener('abort', leave, { once: true });
  return queue;
}
