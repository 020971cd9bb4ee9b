import type { Config } from '../../config.ts';
import type { Logger } from '../../logger.ts';
import { DeepgramSpeechToText } from './deepgram.ts';
import { OpenAiSpeechToText } from './openai-transcription.ts';
import type { SpeechToText } from './types.ts';

/** The hosted recognizer STT_PROVIDER names; undefined for `local`, which the offline stack serves. */
export function createHostedSpeechToText(config: Pick<Config, 'stt'>, logger: Logger): SpeechToText | undefined {
  const stt = config.stt;
  switch (stt.provider) {
    case 'local':
      return undefined;
    case 'deepgram':
      return new DeepgramSpeechToText({ url: stt.url, apiKey: stt.apiKey, model: stt.model, logger });
    case 'openai':
      return new OpenAiSpeechToText({ baseUrl: stt.baseUrl, apiKey: stt.apiKey, model: stt.model });
  }
}
