import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Providers } from '../../src/providers/index.ts';
import { offlineSpeechInstalled } from '../../src/providers/speech-install.ts';

/** Where scripts/install-speech.sh puts the offline models (the default SPEECH_DIR). */
export const speechDir = path.resolve(process.env.SPEECH_DIR ?? '.tools/speech');

/** Whether the offline speech stack is installed; tests that need it skip, saying how to install it, when not. */
export const speechInstalled = offlineSpeechInstalled(speechDir);

export const speechSkipReason = `the offline speech stack is not installed in ${speechDir}: run bash scripts/install-speech.sh`;

if (!speechInstalled) console.warn(`skipping speech tests: ${speechSkipReason}`);

/**
 * Configuration under which the assistant catalogs serve every kind of entry: hosted speech and a realtime model
 * are configured (nothing is called), so they are listed beside the offline voices.
 */
export const everySpeechProvider = {
  STT_PROVIDER: 'deepgram', DEEPGRAM_API_KEY: 'test', TTS_PROVIDER: 'elevenlabs', ELEVENLABS_API_KEY: 'test', REALTIME_URL: 'ws://127.0.0.1:9/v1/realtime',
};

function run(command: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => { err += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`${command} exited ${code}: ${err}`))));
    child.stdin.end(input);
  });
}

/**
 * `text` spoken by espeak-ng, as PCM16 mono at 16 kHz with `silenceMs` of silence before and after (sox
 * resamples and pads).
 */
export async function spokenPcm(text: string, options: { voice?: string; silenceMs?: number } = {}): Promise<Int16Array> {
  const wav = await run('espeak-ng', ['-v', options.voice ?? 'en-us', '--stdout', text]);
  const pad = String((options.silenceMs ?? 0) / 1000);
  const raw = await run('sox', ['-t', 'wav', '-', '-t', 'raw', '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', '-', 'pad', pad, pad], wav);
  return new Int16Array(raw.buffer, raw.byteOffset, raw.byteLength / 2);
}

/** Root mean square of PCM16 samples, 0..32768. */
export function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / Math.max(1, samples.length));
}

/** 20 ms at 16 kHz: a caller's frame. */
const FRAME_SAMPLES = 320;
/** A 20 ms frame louder than this (RMS) holds the caller's voice; espeak-ng's silence is all zeros. */
const VOICED_RMS = 200;

/**
 * `samples` from the first frame that holds the voice, so that saying them makes the caller's first frame
 * its first voiced one: the time `say` resolves with is then the onset of speech on the caller's side.
 */
export function fromVoiceOnset(samples: Int16Array): Int16Array {
  for (let offset = 0; offset + FRAME_SAMPLES <= samples.length; offset += FRAME_SAMPLES) {
    if (rms(samples.subarray(offset, offset + FRAME_SAMPLES)) > VOICED_RMS) return samples.subarray(offset);
  }
  throw new Error('the line holds no voice');
}

/** `samples` up to the end of the last frame that holds the voice: a pause put after them is the whole pause. */
export function toVoiceEnd(samples: Int16Array): Int16Array {
  for (let end = samples.length - (samples.length % FRAME_SAMPLES); end >= FRAME_SAMPLES; end -= FRAME_SAMPLES) {
    if (rms(samples.subarray(end - FRAME_SAMPLES, end)) > VOICED_RMS) return samples.subarray(0, end);
  }
  throw new Error('the line holds no voice');
}

/**
 * Loads what the offline stack loads on first use (Whisper's worker processes, the default voice), so that a
 * test timing a call measures the call, not the loading.
 */
export async function warmUpSpeech(providers: Pick<Providers, 'stt' | 'tts'>): Promise<void> {
  const signal = new AbortController().signal;
  if (providers.stt.kind === 'segment') await providers.stt.transcribe(new Int16Array(16000), { language: 'en-US', sampleRate: 16000, signal });
  const tts = providers.tts.default;
  for await (const chunk of tts.synthesize({ text: 'Hello.', voice: tts.defaultVoice, language: 'en-US', speed: 1, signal }).chunks) void chunk;
}
