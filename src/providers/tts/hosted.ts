import type { Config } from '../../config.ts';
import { ElevenLabsTextToSpeech } from './elevenlabs.ts';
import { OpenAiTextToSpeech } from './openai-speech.ts';
import type { TextToSpeech } from './types.ts';

/** The hosted synthesizer TTS_PROVIDER names; undefined for `local` and `espeak`, which the offline stack serves. */
export function createHostedTextToSpeech(config: Pick<Config, 'tts'>): TextToSpeech | undefined {
  const tts = config.tts;
  switch (tts.provider) {
    case 'local':
    case 'espeak':
      return undefined;
    case 'elevenlabs':
      return new ElevenLabsTextToSpeech({ url: tts.url, apiKey: tts.apiKey, model: tts.model });
    case 'openai':
      return new OpenAiTextToSpeech({ baseUrl: tts.baseUrl, apiKey: tts.apiKey, model: tts.model });
  }
}
