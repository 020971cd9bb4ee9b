import fs from 'node:fs';
import path from 'node:path';
import { iso2Of } from '../../lib/languages/index.ts';
import type { Logger } from '../../logger.ts';
import { SpeechProviderError, type SegmentOptions, type SegmentSpeechToText, type Transcript } from './types.ts';
import { createWhisperLocal, type WhisperLocal } from './whisper-local.ts';

/** The fast English-only default, and the multilingual model every other language is heard with: their folders in SPEECH_DIR. */
export const WHISPER_TINY_EN = 'whisper-tiny.en';
export const WHISPER_BASE = 'whisper-base';

export interface LocalRecognizerOptions {
  /** SPEECH_DIR (scripts/install-speech.sh). */
  speechDir: string;
  /** Workers and queue of each model's pool. */
  workers: number;
  queueLimit: number;
  /** ISO 639-1 codes the multilingual model is offered for (those the engine has language packs for). */
  multilingual: readonly string[];
  /** SPEECH_MULTILINGUAL: whether scripts/install-speech.sh installs the multilingual model where calls are held. */
  multilingualInstall: boolean;
  logger: Logger;
}

export interface LocalRecognizer extends SegmentSpeechToText {
  /** ISO 639-1 codes heard: English, and the others when the multilingual model is installed. */
  hears: readonly string[];
  close(): Promise<void>;
  workerPids(): number[];
}

/**
 * The offline recognizer: English with Whisper tiny.en, the fast default, and every other language it serves
 * with the multilingual Whisper base, told the language. A pool of worker processes per model and language;
 * a language's pool starts only when a call in it first speaks (a stat at start says whether
 * scripts/install-speech.sh installed base), so an English-only deployment never pays for base.
 */
export function createLocalRecognizer(options: LocalRecognizerOptions): LocalRecognizer {
  const installed = (model: string) => fs.existsSync(path.join(options.speechDir, model, 'model.bin'));
  const baseInstalled = installed(WHISPER_BASE);
  // A process without the offline stack (an api role apart from its media role, whose start installs the
  // models) says what will be heard where calls are held; one that has it says what it has.
  const hearsMore = installed(WHISPER_TINY_EN) ? baseInstalled : options.multilingualInstall;
  const languages = ['en', ...(hearsMore ? options.multilingual.filter((code) => code !== 'en') : [])];
  const pool = { speechDir: options.speechDir, workers: options.workers, queueLimit: options.queueLimit, logger: options.logger };
  const pools = new Map<string, WhisperLocal>([['en', createWhisperLocal({ ...pool, model: WHISPER_TINY_EN, language: 'en' })]]);

  return {
    kind: 'segment',
    name: 'whisper-local',
    hears: languages,
    incremental: true,
    transcribe(audio: Int16Array, request: SegmentOptions): Promise<Transcript> {
      const language = iso2Of(request.language);
      const running = pools.get(language);
      if (running) return running.transcribe(audio, request);
      if (!languages.includes(language)) {
        return Promise.reject(new SpeechProviderError(
          `the offline recognizer hears ${languages.join(', ')}, not ${request.language}; a hosted provider (STT_PROVIDER) hears it`, { retryable: false },
        ));
      }
      if (!baseInstalled) {
        return Promise.reject(new SpeechProviderError(
          `the multilingual Whisper base model, which hears ${request.language}, is not installed in ${options.speechDir}: run bash scripts/install-speech.sh`,
          { retryable: false },
        ));
      }
      const started = createWhisperLocal({ ...pool, model: WHISPER_BASE, language });
      pools.set(language, started);
      return started.transcribe(audio, request);
    },
    async close(): Promise<void> {
      await Promise.all([...pools.values()].map((running) => running.close()));
    },
    workerPids: () => [...pools.values()].flatMap((running) => running.workerPids()),
  };
}
