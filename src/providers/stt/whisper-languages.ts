import fs from 'node:fs';
import path from 'node:path';
import { iso2Of } from '../../lib/languages/index.ts';
import type { Logger } from '../../logger.ts';
import { SpeechProviderError, type SegmentSpeechToText, type Transcript, type TranscriptionOptions } from './types.ts';
import { createWhisperLocal, WHISPER_BASE, WHISPER_TINY_EN, type WhisperLocal, type WhisperModel } from './whisper-local.ts';

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
 * with the multilingual Whisper base, told the language of each utterance. Each model has its own pool of
 * worker processes; the base pool starts only when a call in another language speaks (a stat at start says
 * whether scripts/install-speech.sh installed it).
 */
export function createLocalRecognizer(options: LocalRecognizerOptions): LocalRecognizer {
  const installed = (model: WhisperModel) => fs.existsSync(path.join(options.speechDir, model.dir, 'model.bin'));
  const baseInstalled = installed(WHISPER_BASE);
  // A process without the offline stack (an api role apart from its media role, whose start installs the
  // models) says what will be heard where calls are held; one that has it says what it has.
  const hearsMore = installed(WHISPER_TINY_EN) ? baseInstalled : options.multilingualInstall;
  const languages = ['en', ...(hearsMore ? options.multilingual.filter((code) => code !== 'en') : [])];
  const pool = { speechDir: options.speechDir, workers: options.workers, queueLimit: options.queueLimit, logger: options.logger };
  const english = createWhisperLocal({ ...pool, model: WHISPER_TINY_EN });
  let multilingual: WhisperLocal | undefined;

  return {
    kind: 'segment',
    name: 'whisper-local',
    hears: languages,
    transcribe(audio: Int16Array, request: TranscriptionOptions): Promise<Transcript> {
      const language = iso2Of(request.language);
      if (language === 'en') return english.transcribe(audio, request);
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
      multilingual ??= createWhisperLocal({ ...pool, model: WHISPER_BASE });
      return multilingual.transcribe(audio, request);
    },
    async close(): Promise<void> {
      await Promise.all([english.close(), multilingual?.close()]);
    },
    workerPids: () => [...english.workerPids(), ...(multilingual?.workerPids() ?? [])],
  };
}
