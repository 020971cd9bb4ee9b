import { spawn } from 'node:child_process';
import { SpeechProviderError } from '../stt/types.ts';
import { AsyncQueue } from '../../lib/async-queue.ts';
import { WavStream } from '../../lib/audio/wav.ts';
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
        const queue = new AsyncQueue<Int16Array>();
        queue.end(new SpeechProviderError(`"${request.voice}" is not an espeak-ng voice`, { retryable: false }));
        return { sampleRate, chunks: queue };
      }
      const rate = Math.round(Math.min(2, Math.max(0.5, request.speed)) * wordsPerMinute);
      const child = spawn(command, ['--stdout', '-v', request.voice, '-s', String(rate)], { stdio: ['pipe', 'pipe', 'pipe'] });
      const queue = new AsyncQueue<Int16Array>({ flow: { highWater: highWaterChunks, pause: () => child.stdout.pause(), resume: () => child.stdout.resume() } });
      const wav = new WavStream(sampleRate);
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
          queue.end(new SpeechProviderError(`espeak-ng: ${samples.message}`, { retryable: false }));
        } else if (samples.length > 0) {
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
