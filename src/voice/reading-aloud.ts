/**
 * A synthesizer that reads dates, times of day and amounts of money as the sentence's language says them
 * (lib/languages/speakable.ts): the text the caller's transcript keeps is the model's, the words spoken are
 * the language's. A language without a pack is spoken as written.
 */
import { hasLanguagePack, languagePack } from '../lib/languages/index.ts';
import { speakable } from '../lib/languages/speakable.ts';
import type { TextToSpeech } from '../providers/tts/types.ts';

export function readingAloud(tts: TextToSpeech): TextToSpeech {
  return {
    name: tts.name,
    code: tts.code,
    defaultVoice: tts.defaultVoice,
    ...(tts.warmUp ? { warmUp: () => tts.warmUp?.() ?? Promise.resolve() } : {}),
    synthesize: (request) => tts.synthesize(hasLanguagePack(request.language) ? { ...request, text: speakable(request.text, languagePack(request.language)) } : request),
  };
}
