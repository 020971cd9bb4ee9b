import { spawn } from 'node:child_process';
import { SpeechProviderError } from '../stt/types.ts';
import { ChunkQueue } from './chunk-queue.ts';
import type { SynthesisRequest, SynthesizedSpeech, TextToSpeech } from './types.ts';

export interface EspeakOptions {
  /** The espeak-ng program; found on PATH by default. */
  command?: string;
}

/** espeak-ng's `--stdout` WAV is mono PCM16 at 22.05 kHz. */
const sampleRate = 22050;
/** espeak-ng's natural pace in words per minute, which `speed` scales. */
const wordsPerMinute = 175;
// Chunks of stdout (64 KiB each at most) waiting for the consumer before espeak-ng's output is paused.
const highWaterChunks = 16;

/** A voice name of espeak-ng with an optional variant (`en-us`, `en-us+m3`); never an option in disguise. */
const voicePattern = /^[a-z]{2,3}(?:-[a-z0-9]+)*(?:\+[a-z0-9]+)?$/i;

/**
 * Reads a streamed WAV: the RIFF header, then every byte after the `data` chunk's header is PCM (espeak-ng
 * writes a placeholder length, as a stream cannot know it). Checks the format is what was promised.
 */
class WavStream {
  private header: Buffer | undefined = Buffer.alloc(0);
  private odd: Buffer | undefined;

  /** The samples in `bytes`, or an error when the header is not mono PCM16 at the expected rate. */
  push(bytes: Buffer): Int16Array | Error {
    let data = bytes;
    if (this.header) {
      this.header = Buffer.concat([this.header, bytes]);
      const parsed = parseHeader(this.header);
      if (parsed === undefined) return new Int16Array(0);
      if (parsed instanceof Error) return parsed;
      data = this.header.subarray(parsed);
      this.header = undefined;
    }
    if (this.odd) {
      data = Buffer.concat([this.odd, data]);
      this.odd = undefined;
    }
    if (data.length % 2 === 1) {
      this.odd = Buffer.from(data.subarray(data.length - 1));
      data = data.subarray(0, data.length - 1);
    }
    // Copied into an aligned buffer of its own: the chunk outlives the pipe's buffer and needs 2-byte alignment.
    const samples = new Int16Array(data.length / 2);
    Buffer.from(samples.buffer).set(data);
    return samples;
  }
}

/** The offset of the PCM data, undefined while the header is incomplete, or an Error for another format. */
function parseHeader(header: Buffer): number | Error | undefined {
  if (header.length < 12) return undefined;
  if (header.toString('latin1', 0, 4) !== 'RIFF' || header.toString('latin1', 8, 12) !== 'WAVE') return new Error('espeak-ng did not write a WAV');
  let at = 12;
  let format = false;
  while (header.length >= at + 8) {
    const id = header.toString('latin1', at, at + 4);
    const size = header.readUInt32LE(at + 4);
    if (id === 'data') {
      if (!format) return new Error('the WAV has no fmt chunk before its data');
      return at + 8;
    }
    if (header.length < at + 8 + size) return undefined;
    if (id === 'fmt ') {
      const [audioFormat, channels, rate, bits] = [header.readUInt16LE(at + 8), header.readUInt16LE(at + 10), header.readUInt32LE(at + 12), header.readUInt16LE(at + 22)];
      if (audioFormat !== 1 || channels !== 1 || bits !== 16 || rate !== sampleRate) {
        return new Error(`espeak-ng wrote format ${audioFormat}, ${channels} channels, ${bits} bits at ${rate} Hz; expected mono PCM16 at ${sampleRate} Hz`);
      }
      format = true;
    }
    at += 8 + size + (size % 2);
  }
  return undefined;
}

/**
 * espeak-ng, one child process per sentence: it starts in a few milliseconds and writes the whole sentence
 * in about as many, so the first chunk comes almost at once. The text goes in on stdin, never as an argument.
 */
export function createEspeakTts(options: EspeakOptions = {}): TextToSpeech {
  const command = options.command ?? 'espeak-ng';
  return {
    name: 'espeak',
    code: 'espeak',
    defaultVoice: 'en-us',
    synthesize(request: SynthesisRequest): SynthesizedSpeech {
      if (!voicePattern.test(request.voice)) {
        const queue = new ChunkQueue();
        queue.end(new SpeechProviderError(`"${request.voice}" is not an espeak-ng voice`, { retryable: false }));
        return { sampleRate, chunks: queue };
      }
      const rate = Math.round(Math.min(2, Math.max(0.5, request.speed)) * wordsPerMinute);
      const child = spawn(command, ['--stdout', '-v', request.voice, '-s', String(rate)], { stdio: ['pipe', 'pipe', 'pipe'] });
      const queue = new ChunkQueue({ highWater: highWaterChunks, pause: () => child.stdout.pause(), resume: () => child.stdout.resume() });
      const wav = new WavStream();
      let stderr = '';
      const onAbort = () => {
        child.kill('SIGKILL');
        queue.clear();
      };
      request.signal.addEventListener('abort', onAbort, { once: true });
      if (request.signal.aborted) onAbort();

      child.stdout.on('data', (bytes: Buffer) => {
        const samples = wav.push(bytes);
        if (samples instanceof Error) {
          child.kill('SIGKILL');
          queue.end(new SpeechProviderError(samples.message, { retryable: false }));
        } else {
          queue.push(samples);
        }
      });
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr = (stderr + text).slice(-1000);
      });
      // A closed stdin is reported by the exit that follows.
      child.stdin.on('error', () => {});
      child.on('error', (error) => {
        request.signal.removeEventListener('abort', onAbort);
        queue.end(new SpeechProviderError(`espeak-ng could not start (${error.message}); install it with apt-get install espeak-ng`, { retryable: false, cause: error }));
      });
      child.on('close', (code, signal) => {
        request.signal.removeEventListener('abort', onAbort);
        if (code === 0) queue.end();
        else queue.end(new SpeechProviderError(`espeak-ng failed (${signal ?? `exit code ${code}`}): ${stderr.trim()}`, { retryable: false }));
      });
      child.stdin.end(request.text);
      return { sampleRate, chunks: queue };
    },
  };
}
