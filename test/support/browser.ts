/**
 * Headless Debian Chromium for the browser tests, started as this machine's closed network needs (no
 * background connections), and the WAV files its fake microphone plays.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const screenshots = path.resolve('test-results', 'screenshots');

const QUIET_FLAGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Chromium; with `microphone`, a page's getUserMedia is granted without asking and plays that WAV on a loop,
 * and with `autoplay`, pages play audio without a click first.
 */
export function launchChromium(options: { microphone?: string; autoplay?: boolean } = {}): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    args: [
      ...QUIET_FLAGS,
      ...(options.autoplay ? ['--autoplay-policy=no-user-gesture-required'] : []),
      ...(options.microphone ? ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${options.microphone}`] : []),
    ],
  });
}

/**
 * A WAV for the fake microphone in `directory`: `line` said by espeak-ng, at 48 kHz, with `before` and `after`
 * seconds of silence around it (the loop's timing: what the assistant says meanwhile, and its answer).
 */
export function spokenWav(directory: string, line: string, silence: { before: number; after: number }): string {
  const raw = path.join(directory, 'espeak.wav');
  const wav = path.join(directory, 'caller.wav');
  for (const [command, args] of [
    ['espeak-ng', ['-v', 'en-us', '-w', raw, line]],
    ['sox', [raw, '-r', '48000', '-c', '1', '-b', '16', wav, 'pad', String(silence.before), String(silence.after)]],
  ] as const) {
    const run = spawnSync(command, args);
    if (run.status !== 0) throw new Error(`${command} failed: ${run.stderr.toString()}`);
  }
  return wav;
}
