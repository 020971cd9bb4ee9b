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
