/**
 * The languages the engine holds calls in beyond its recognizer and voice (types.ts says what a pack holds).
 * A language without a pack is spoken with the English pack's text checks and lines: its hosted recognizer
 * and voice still serve it, and its model answers in it, but the engine's own lines are English.
 */
import { german } from './de.ts';
import { english } from './en.ts';
import { spanish } from './es.ts';
import { french } from './fr.ts';
import type { LanguagePack } from './types.ts';

export type { Currency, GoodbyeReason, LanguagePack, NumberReading } from './types.ts';

const packs = new Map<string, LanguagePack>([english, german, spanish, french].map((pack) => [pack.iso2, pack]));

/** ISO 639-1 codes of the languages with a pack: those the offline stack can serve. */
export const PACKED_LANGUAGES: readonly string[] = [...packs.keys()];

/** The ISO 639-1 code of a catalog code (`de-DE`, `de`), lower case. */
export function iso2Of(code: string): string {
  return code.split(/[-_]/)[0]?.toLowerCase() ?? '';
}

const englishNames = new Intl.DisplayNames(['en'], { type: 'language' });

/**
 * A language's name in English (BCP 47 or ISO 639-1: `de-DE` is "German"), for instructions to a language model,
 * packed or not; undefined for a code Intl cannot name.
 */
export function languageName(code: string): string | undefined {
  try {
    const name = englishNames.of(iso2Of(code));
    return name && name !== iso2Of(code) ? name : undefined;
  } catch {
    // Not a language code at all.
    return undefined;
  }
}

/** Whether a language (BCP 47 or ISO 639-1) has a pack of its own. */
export function hasLanguagePack(code: string): boolean {
  return packs.has(iso2Of(code));
}

/** The pack of a language (BCP 47 or ISO 639-1); English for one without a pack. */
export function languagePack(code: string | undefined): LanguagePack {
  return (code === undefined ? undefined : packs.get(iso2Of(code))) ?? english;
}

/**
 * Words as the text checks compare them: lower case, accents and apostrophes dropped ("can't" is "cant",
 * "über" is "uber", "ß" is "ss"), anything else between words a single space. A small recognizer spells
 * accents and punctuation loosely, so lists and patterns are written in this form.
 */
export function foldWords(text: string): string {
  return text
    .toLowerCase()
    .replace(/ß/g, 'ss')
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .replace(/['\u2018\u2019`]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The words of `text` (folded) that are no backchannel of the language: "mhm, okay" has none, "okay but wait" has "but wait". */
export function wordsBeyondBackchannels(text: string, pack: LanguagePack): string[] {
  let rest = ` ${foldWords(text)} `;
  // Longest first, so "all right" goes before "right".
  for (const phrase of foldedList(pack, 'backchannels')) {
    // Repeated: " ok ok " leaves " ok " after one pass, the space between them taken by the first.
    while (rest.includes(` ${phrase} `)) rest = rest.replaceAll(` ${phrase} `, ' ');
  }
  return rest.split(' ').filter(Boolean);
}

/** Whether `text` holds one of the language's words that ask the assistant to stop ("wait", "warten Sie"). */
export function asksToStop(text: string, pack: LanguagePack): boolean {
  const words = ` ${foldWords(text)} `;
  return foldedList(pack, 'interruptionWords').some((phrase) => words.includes(` ${phrase} `));
}

const folded = new WeakMap<LanguagePack, Map<string, string[]>>();

function foldedList(pack: LanguagePack, list: 'backchannels' | 'interruptionWords'): string[] {
  let lists = folded.get(pack);
  if (!lists) folded.set(pack, (lists = new Map<string, string[]>()));
  let phrases = lists.get(list);
  if (!phrases) {
    phrases = [...new Set([...pack[list]].map(foldWords))].sort((a, b) => b.length - a.length);
    lists.set(list, phrases);
  }
  return phrases;
}
