import { access } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../logger.ts';
import { AsyncQueue } from '../../lib/async-queue.ts';
import { floatToPcm16 } from '../../lib/audio/pcm.ts';
import { sherpa, type SherpaOfflineTts } from '../sherpa.ts';
import { SpeechProviderError } from '../stt/types.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from './types.ts';

/** The Piper voice of the embedded default (the catalog's `Joe (Piper)`), installed by scripts/install-speech.sh. */
export const defaultPiperVoice = 'en_US-joe-medium';

export interface PiperOptions {
  /** SPEECH_DIR/piper: one folder per voice id with `model.onnx` and `tokens.txt` (scripts/piper-prep.ts). */
  voicesDir: string;
  /** espeak-ng's data folder, for the phonemes; Debian's package installs it here. */
  espeakDataDir?: string;
  /** Voices loaded per voice id, each synthesizing one request at a time on one thread. */
  instances: number;
  logger: Logger;
}

export interface PiperTts extends TextToSpeech {
  /** Loads every instance of the default voice now. */
  warmUp(): Promise<void>;
  /** Stops handing out voices; synthesis in flight ends at its next sentence. */
  close(): void;
}

/** Piper's medium-quality voices, the only quality installed, speak at 22.05 kHz. */
const sampleRate = 22050;
/** Where Debian's espeak-ng-data package puts the phoneme data on this machine's architecture. */
const defaultEspeakData = `/usr/lib/${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}-linux-gnu/espeak-ng-data`;

/** The loaded instances of one voice and the requests waiting for one of them. */
class VoicePool {
  private readonly idle: SherpaOfflineTts[] = [];
  private readonly waiting: ((voice: SherpaOfflineTts | undefined) => void)[] = [];
  private loading = 0;
  private loaded = 0;
  private closed = false;

  private readonly load: () => Promise<SherpaOfflineTts>;
  private readonly size: number;

  constructor(load: () => Promise<SherpaOfflineTts>, size: number) {
    this.load = load;
    this.size = size;
  }

  /** A free instance, loading one when fewer than `size` exist; undefined when the signal aborts first. */
  async acquire(signal: AbortSignal): Promise<SherpaOfflineTts | undefined> {
    const free = this.idle.pop();
    if (free) return free;
    if (this.loaded + this.loading < this.size) {
      this.loading += 1;
      try {
        const voice = await this.load();
        this.loaded += 1;
        return voice;
      } finally {
        this.loading -= 1;
      }
    }
    return new Promise((resolve) => {
      const waiter = (voice: SherpaOfflineTts | undefined) => {
        signal.removeEventListener('abort', onAbort);
        resolve(voice);
      };
      const onAbort = () => {
        this.waiting.splice(this.waiting.indexOf(waiter), 1);
        resolve(undefined);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  /** Loads instances one after the other until `size` exist, each going to a waiting request or kept idle. */
  async fill(): Promise<void> {
    while (!this.closed && this.loaded + this.loading < this.size) {
      this.loading += 1;
      try {
        const voice = await this.load();
        this.loaded += 1;
        this.release(voice);
      } finally {
        this.loading -= 1;
      }
    }
  }

  release(voice: SherpaOfflineTts): void {
    if (this.closed) return;
    const next = this.waiting.shift();
    if (next) next(voice);
    else this.idle.push(voice);
  }

  close(): void {
    this.closed = true;
    this.idle.length = 0;
    for (const waiter of this.waiting.splice(0)) waiter(undefined);
  }
}

/**
 * Piper voices through sherpa-onnx, in this process: `generateAsync` synthesizes on libuv's thread pool and
 * hands over each sentence as it is done, which is streamed on at once. A voice is loaded on its first
 * request (about 1.5 s), not at start, unless warmed up (the media role does so with the default voice).
 */
export function createPiperTts(options: PiperOptions): PiperTts {
  const pools = new Map<string, VoicePool>();
  let closed = false;

  async function loadVoice(voiceId: string): Promise<SherpaOfflineTts> {
    const dir = path.join(options.voicesDir, voiceId);
    try {
      await access(path.join(dir, 'model.onnx'));
    } catch (error) {
      throw new SpeechProviderError(`the Piper voice ${voiceId} is not installed in ${dir} (run bash scripts/install-speech.sh)`, { retryable: false, cause: error });
    }
    const started = performance.now();
    const tts = await sherpa().OfflineTts.createAsync({
      model: {
        vits: { model: path.join(dir, 'model.onnx'), tokens: path.join(dir, 'tokens.txt'), dataDir: options.espeakDataDir ?? defaultEspeakData },
        // One thread: two threads were slower on two shared cores; parallelism comes from more instances.
        numThreads: 1,
        debug: false,
        provider: 'cpu',
      },
      // One sentence per onProgress call, so the first is heard while the next is made.
      maxNumSentences: 1,
    });
    if (tts.sampleRate !== sampleRate) {
      throw new SpeechProviderError(`the Piper voice ${voiceId} speaks at ${tts.sampleRate} Hz; only ${sampleRate} Hz voices are supported`, { retryable: false });
    }
    options.logger.info({ voice: voiceId, ms: Math.round(performance.now() - started) }, 'loaded a Piper voice');
    return tts;
  }

  function poolFor(voiceId: string): VoicePool {
    let pool = pools.get(voiceId);
    if (!pool) {
      pool = new VoicePool(() => loadVoice(voiceId), options.instances);
      pools.set(voiceId, pool);
    }
    return pool;
  }

  async function speak(request: SynthesisRequest, queue: AsyncQueue<Int16Array>): Promise<void> {
    if (closed) throw new SpeechProviderError('the Piper voices are closed', { retryable: false });
    if (!/^[A-Za-z0-9_-]+$/.test(request.voice)) throw new SpeechProviderError(`"${request.voice}" is not a Piper voice id`, { retryable: false });
    const pool = poolFor(request.voice);
    const voice = await pool.acquire(request.signal);
    if (!voice) return;
    try {
      await voice.generateAsync({
        text: request.text,
        sid: 0,
        speed: request.speed,
        onProgress: ({ samples }) => {
          if (request.signal.aborted || closed) return 0;
          if (samples.length > 0) queue.push(floatToPcm16(samples));
          return 1;
        },
      });
    } finally {
      if (!closed) pool.release(voice);
    }
  }

  return {
    name: 'piper',
    code: 'piper',
    defaultVoice: defaultPiperVoice,
    synthesize(request: SynthesisRequest): SynthesizedSpeech {
      const queue = new AsyncQueue<Int16Array>();
      const onAbort = () => queue.clear();
      request.signal.addEventListener('abort', onAbort, { once: true });
      if (request.signal.aborted) queue.clear();
      speak(request, queue).then(
        () => queue.end(),
        (error: unknown) => queue.end(error instanceof SpeechProviderError ? error : new SpeechProviderError('Piper could not synthesize the sentence', { retryable: false, cause: error })),
      ).finally(() => request.signal.removeEventListener('abort', onAbort));
      return { sampleRate, chunks: queue };
    },
    warmUp: () => poolFor(defaultPiperVoice).fill(),
    close(): void {
      closed = true;
      for (const pool of pools.values()) pool.close();
      pools.clear();
    },
  };
}
