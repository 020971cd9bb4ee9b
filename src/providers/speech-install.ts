import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';

const installScript = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'scripts', 'install-speech.sh');

/** The files the offline stack runs on; all there means installed. */
const requiredFiles = ['silero_vad.onnx', 'whisper-tiny.en/model.bin', 'piper/en_US-joe-medium/model.onnx', 'smart-turn/smart-turn-v3.2-cpu.onnx', 'venv/bin/python'];

/** Whether scripts/install-speech.sh has installed the offline stack into `dir` (English calls). */
export function offlineSpeechInstalled(dir: string): boolean {
  return requiredFiles.every((file) => fs.existsSync(path.join(dir, file)));
}

/** Whether it has also installed the multilingual Whisper base, which hears the other languages. */
export function multilingualSpeechInstalled(dir: string): boolean {
  return fs.existsSync(path.join(dir, 'whisper-base', 'model.bin'));
}

/** Whether this configuration listens or speaks with the offline stack. */
function usesOfflineSpeech(config: Config): boolean {
  return config.stt.provider === 'local' || config.tts.provider === 'local' || config.tts.provider === 'espeak';
}

/**
 * A process that serves calls with the offline speech stack installs it on first start, the way it installs
 * the Temporal CLI: `scripts/install-speech.sh` (Debian's espeak-ng and sox, a Python venv and the model files,
 * each checked against its SHA-256), saying what it does. When that fails the process still starts: chats
 * work, and calls say what is missing.
 */
export function ensureSpeechInstalled(config: Config, logger: Logger): void {
  if (!usesOfflineSpeech(config)) return;
  const { dir, multilingual } = config.speech;
  if (offlineSpeechInstalled(dir) && (!multilingual || multilingualSpeechInstalled(dir))) return;
  logger.info({ speechDir: dir }, 'the offline speech stack is missing: running scripts/install-speech.sh (once, about 550 MB)');
  const result = spawnSync('bash', [installScript], {
    stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, SPEECH_DIR: dir, SPEECH_MULTILINGUAL: multilingual ? '1' : '0' },
  });
  if (result.status !== 0) {
    logger.warn({ speechDir: config.speech.dir }, 'scripts/install-speech.sh failed (see above): calls cannot listen or speak until it succeeds; chats are not affected');
  }
}
