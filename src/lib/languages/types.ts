/**
 * What the engine needs to hold a call in one language besides the recognizer and the voice: the words its
 * text checks read, the lines it says on its own, and how it reads numbers and dates aloud. Plain data, one
 * module per language (en.ts, de.ts, …); index.ts finds a language's pack by its catalog code.
 */

/** Why the engine ends a call by itself, each with its goodbye. */
export type GoodbyeReason = 'max_duration' | 'silence_timeout' | 'balance_exhausted';

export interface LanguagePack {
  /** ISO 639-1, as the languages catalog's `iso_2`. */
  iso2: string;
  /** The language's name in English, for instructions to a language model ("Write in German"). */
  englishName: string;
  /** The BCP 47 locale whose month and weekday names are read aloud (Intl). */
  locale: string;

  /** Words after which a speaker has not finished: conjunctions, prepositions, articles, hesitations. Lower case. */
  trailingWords: ReadonlySet<string>;
  /**
   * Words after which one or two digits are a time or a count ("at 3", "for 2"), not the first group of a
   * number read in groups: the recognizer's full stop after them finishes the turn's words. Lower case.
   */
  countWords: ReadonlySet<string>;
  /**
   * The words of a recorded voicemail greeting, matched against the recognizer's text once it is normalized
   * (lower case, accents and apostrophes dropped, one space between words: voicemail/phrases.ts).
   */
  voicemailPhrases: readonly RegExp[];
  /** Rewrites applied to normalized words before the voicemail phrases are matched ("can not" → "cannot"). */
  voicemailSpellings?: readonly [RegExp, string][];
  /** What a listener says to show they follow ("mhm", "genau"): it does not count as words that interrupt. Lower case. */
  backchannels: ReadonlySet<string>;
  /** Words that ask the assistant to stop at once ("stop", "warten Sie"): they interrupt whatever the word minimum. Lower case. */
  interruptionWords: ReadonlySet<string>;

  /** What the engine says when it ends the call by itself. */
  goodbyes: Readonly<Record<GoodbyeReason, string>>;
  /** What the model is asked when the caller has been silent a while (an assistant may set its own). */
  reengageInstruction: string;
  /** Spoken while a slow tool runs, when the assistant configures no fillers. */
  fillerPhrases: readonly string[];
  /** The words a warm transfer's supervisor hears when the model wrote no summary: the last turns stand in. */
  lastTurns: LastTurnsWords;

  /** How it reads numbers, dates, times and amounts aloud (speakable.ts). */
  reading: NumberReading;
}

/** The last turns as said to a supervisor: "The last words were: the caller said: "…"; I said: "…"." */
export interface LastTurnsWords {
  /** Said when nobody has spoken yet. */
  nothingSaid: string;
  /** Before the turns. */
  lead: string;
  /** Before the caller's words, and before the assistant's own (it speaks to the supervisor in the first person). */
  callerSaid: string;
  assistantSaid: string;
}

export type Currency = 'EUR' | 'USD' | 'GBP';

/** How numbers, dates, times and amounts are said; speakable.ts finds them in a sentence and asks these. */
export interface NumberReading {
  /** A whole number 0..999,999,999 in words. */
  cardinal(value: number): string;
  /** A year in words ("twenty twenty-six", "zweitausendsechsundzwanzig"). */
  year(value: number): string;
  /**
   * A date in words (month 1..12, its name from the locale). `before` is the word in front of it, lower case:
   * German says "am zwölften März" but "der zwölfte März".
   */
  date(day: number, month: string, year: number | undefined, before: string): string;
  /** A time of day, hours 0..23, as said on the phone. */
  time(hours: number, minutes: number): string;
  /** An amount of money: whole units and cents (undefined: none written). */
  money(units: number, cents: number | undefined, currency: Currency): string;
  /** The word said for the decimal separator ("point", "Komma"). */
  decimalWord: string;
  /** How the language writes a decimal number and numeric dates: `3,50` and 12.03.2026 (or 12/03/2026), or `3.50` and 03/12/2026. */
  decimalSeparator: ',' | '.';
  /** Day first (12/03/2026 is 12 March) or month first (03/12/2026, American English). */
  dateOrder: 'dmy' | 'mdy';
}
