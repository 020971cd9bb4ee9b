import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { PACKED_LANGUAGES } from '../lib/languages/index.ts';
import type { Logger } from '../logger.ts';
import { createHostedSpeechToText } from './stt/hosted.ts';
import type { SpeechToText } from './stt/types.ts';
import { createLocalRecognizer } from './stt/whisper-languages.ts';
import { createEspeakTts } from './tts/espeak.ts';
import { createHostedTextToSpeech } from './tts/hosted.ts';
import { createPiperTts, defaultPiperVoice } from './tts/piper.ts';
import type { TextToSpeech } from './tts/types.ts';
import { createSmartTurn, SMART_TURN_MODEL } from './turn/smart-turn.ts';
import type { TurnDetector } from './turn/types.ts';
import { createThreadedSileroVad } from './vad/threaded.ts';
import type { VadFactory } from './vad/types.ts';

/** The text-to-speech adapters of this process, one per synthesizer provider `code` of the catalog. */
export interface SpeechSynthesizers {
  /** The adapter for an assistant voice's synthesizer provider (`espeak`, `piper`, …); undefined when this process has none. */
  forCode(code: string): TextToSpeech | undefined;
  /** TTS_PROVIDER's adapter, for a voice no configured provider serves. */
  default: TextToSpeech;
  /** The synthesizer provider codes this process serves, for the catalogs. */
  codes: string[];
}

export interface Speech {
  stt: SpeechToText;
  tts: SpeechSynthesizers;
  vad: VadFactory;
  /** The turn model (Smart Turn v3.2), which hears from the caller's voice whether they have finished. */
  turn: TurnDetector;
  /** Ends the worker processes and drops the voices built here; nothing has started before the first call. */
  close(): Promise<void>;
}


/**
 * Builds the speech adapters that STT_PROVIDER and TTS_PROVIDER name. Nothing loads here: models load and
 * workers start on first use, so a process that never takes a call never pays for them (the media role warms
 * up its default synthesizer when it starts: TextToSpeech.warmUp).
 */
export function createSpeech(config: Config, logger: Logger): Speech {
  const { speech } = config;
  const closers: (() => Promise<void> | void)[] = [];

  let stt = createHostedSpeechToText(config, logger);
  if (!stt) {
    const whisper = createLocalRecognizer({
      speechDir: speech.dir, workers: speech.whisperWorkers, queueLimit: speech.whisperQueueLimit, multilingual: PACKED_LANGUAGES,
      multilingualInstall: speech.multilingual, logger,
    });
    closers.push(() => whisper.close());
    stt = whisper;
  }

  const synthesizers = new Map<string, TextToSpeech>();
  const espeak = createEspeakTts();
  synthesizers.set(espeak.code, espeak);
  // A stat at start, not a load: Piper is offered only where scripts/install-speech.sh prepared its voice.
  const piperInstalled = fs.existsSync(path.join(speech.dir, 'piper', defaultPiperVoice, 'model.onnx'));
  if (piperInstalled) {
    const piper = createPiperTts({ voicesDir: path.join(speech.dir, 'piper'), instances: speech.piperInstances, logger });
    closers.push(() => piper.close());
    synthesizers.set(piper.code, piper);
  }
  const hosted = createHostedTextToSpeech(config);
  if (hosted) synthesizers.set(hosted.code, hosted);
  let defaultTts: TextToSpeech;
  if (hosted) {
    defaultTts = hosted;
  } else if (config.tts.provider === 'espeak') {
    defaultTts = espeak;
  } else {
    if (!piperInstalled) logger.warn({ speechDir: speech.dir }, 'the Piper voice is not installed (bash scripts/install-speech.sh); speaking with espeak-ng');
    defaultTts = synthesizers.get('piper') ?? espeak;
  }

  const vad = createThreadedSileroVad({ modelPath: path.join(speech.dir, 'silero_vad.onnx'), threads: speech.vadThreads, logger });
  closers.push(() => vad.close?.());
  const turn = createSmartTurn({ modelPath: path.join(speech.dir, SMART_TURN_MODEL), logger });
  closers.push(() => turn.close?.());

  return {
    stt,
    tts: { forCode: (code) => synthesizers.get(code), default: defaultTts, codes: [...synthesizers.keys()] },
    vad,
    turn,
    async close() {
      for (const close of closers.splice(0)) await close();
    },
  };
}
