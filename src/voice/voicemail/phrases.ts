/**
 * The words of a voicemail greeting. A person answering says "hello?" or their name; a recorded greeting says
 * that nobody can come to the phone and asks for a message after the tone. The recognizer's text is matched
 * loosely (case, accents, punctuation and contractions do not matter), since a small model hears a phone line
 * roughly. The phrases are the callee's language's (lib/languages: "leave a message", "nach dem Signalton").
 */
import { foldWords, languagePack } from '../../lib/languages/index.ts';

/** Folded words (lib/languages foldWords) with the language's spellings made one ("can't" and "can not" are "cannot"). */
export function normalizeWords(text: string, language?: string): string {
  let words = foldWords(text);
  for (const [pattern, spelling] of languagePack(language).voicemailSpellings ?? []) words = words.replace(pattern, spelling);
  return words;
}

/** The voicemail phrase `text` holds, as matched in its normalized words; undefined when there is none. */
export function voicemailPhrase(text: string, language?: string): string | undefined {
  const words = normalizeWords(text, language);
  if (!words) return undefined;
  for (const phrase of languagePack(language).voicemailPhrases) {
    const match = phrase.exec(words);
    if (match) return match[0];
  }
  return undefined;
}
