/**
 * When the caller's voice interrupts the assistant. With `allow_interruptions` off it never does. With
 * `min_interrupt_words` set it does once the transcript of the caller's speech has that many words beyond the
 * backchannels of the caller's language ("uh-huh", "okay"; "mhm", "genau"), so a backchannel lets the assistant
 * go on, or at once on a word that asks it to stop ("wait", "warten Sie"): lib/languages. Otherwise it does once
 * the caller has spoken for a while: `interrupt_sensitivity` (0..5, default 0.5) sets how long, minVoicedMs = 60 + 180 / (1 + 2·s):
 * 240 ms at 0, 150 ms at the default, 120 ms at 1, 96 ms at 2 and 76 ms at 5. Voiced time is
 * counted from the onset the voice activity detector reports, so the assistant stops within about 150 ms of
 * the caller's first word by default (the 200 ms the product promises).
 */

import { asksToStop, languagePack, wordsBeyondBackchannels } from '../../lib/languages/index.ts';

export interface BargeInPolicy {
  allowInterruptions: boolean;
  interruptSensitivity: number;
  minInterruptWords: number | null;
  /** The caller's language (BCP 47), whose backchannels and stop words count. */
  sttLanguage?: string;
}

/** The caller's speech so far while the assistant talks. */
export interface OverlappingSpeech {
  voicedMs: number;
  /** Words the recognizer has for it so far. */
  words: number;
  /** The words themselves, when known: backchannels among them do not count. */
  text?: string;
}

export function minVoicedMs(sensitivity: number): number {
  const s = Math.min(Math.max(sensitivity, 0), 5);
  return Math.round(60 + 180 / (1 + 2 * s));
}

export function wordCount(text: string): number {
  return text.split(/\s+/).filter((word) => /[\p{L}\p{N}]/u.test(word)).length;
}

export function shouldInterrupt(policy: BargeInPolicy, speech: OverlappingSpeech): boolean {
  if (!policy.allowInterruptions) return false;
  if (policy.minInterruptWords !== null && policy.minInterruptWords > 0) {
    if (speech.text === undefined) return speech.words >= policy.minInterruptWords;
    const pack = languagePack(policy.sttLanguage);
    return asksToStop(speech.text, pack) || wordsBeyondBackchannels(speech.text, pack).length >= policy.minInterruptWords;
  }
  return speech.voicedMs >= minVoicedMs(policy.interruptSensitivity);
}
