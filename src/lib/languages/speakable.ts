/**
 * A sentence as a voice should read it: dates, times of day and amounts of money written out in the
 * language's words. A synthesizer reads a plain number well in its own language, but not these: espeak-ng
 * (and Piper, which phonemizes with it) says "12.03.2026" as "zwölf Punkt null drei Punkt …", "3,50 €" as
 * "drei Komma fünf null Euro" and "12/03/2026" as "doce barra cero tres …". Everything else is left as written.
 */
import type { Currency, LanguagePack } from './types.ts';

const monthNames = new Map<string, string[]>();

/** The language's month names, January first, from the locale data Node ships (Intl). */
function months(locale: string): string[] {
  let names = monthNames.get(locale);
  if (!names) {
    const format = new Intl.DateTimeFormat(locale, { month: 'long', timeZone: 'UTC' });
    names = Array.from({ length: 12 }, (_, month) => format.format(Date.UTC(2000, month, 1)));
    monthNames.set(locale, names);
  }
  return names;
}

const currencyCodes: Record<string, Currency> = { '€': 'EUR', eur: 'EUR', euro: 'EUR', euros: 'EUR', $: 'USD', usd: 'USD', '£': 'GBP', gbp: 'GBP' };

/** The word before `offset` in `text`, lower case ("am" in "Termin am 12.03."). */
function wordBefore(text: string, offset: number): string {
  return /([\p{L}]+)\P{L}*$/u.exec(text.slice(0, offset))?.[1]?.toLowerCase() ?? '';
}

function fullYear(written: string | undefined): number | undefined {
  if (written === undefined) return undefined;
  const year = Number(written);
  return written.length === 2 ? 2000 + year : year;
}

const validDate = (day: number, month: number) => day >= 1 && day <= 31 && month >= 1 && month <= 12;

/** A whole amount as written in the language (`1.250` or `1 250` with a decimal comma, `1,250` with a decimal point). */
function wholeAmount(written: string, pack: LanguagePack): number {
  const grouping = pack.reading.decimalSeparator === ',' ? /[.\s\u00a0\u202f]/g : /[,\s\u00a0\u202f]/g;
  return Number(written.replace(grouping, ''));
}

export function speakable(text: string, pack: LanguagePack): string {
  const reading = pack.reading;
  const names = months(pack.locale);
  const date = (offset: number, day: number, month: number, year: number | undefined, whole: string) =>
    validDate(day, month) ? reading.date(day, names[month - 1] as string, year, wordBefore(text, offset)) : whole;
  const decimal = pack.reading.decimalSeparator === ',' ? ',' : '\\.';
  const groups = pack.reading.decimalSeparator === ',' ? '(?:[.\\s\\u00a0\\u202f]\\d{3})*' : '(?:,\\d{3})*';
  const amount = `(\\d{1,3}${groups}|\\d+)(?:${decimal}(\\d{2}))?`;
  const money = (whole: string, units: string, cents: string | undefined, currency: string) => {
    const code = currencyCodes[currency.toLowerCase()];
    const value = wholeAmount(units, pack);
    return code && Number.isSafeInteger(value) && value < 1e9 ? reading.money(value, cents === undefined ? undefined : Number(cents), code) : whole;
  };

  return text
    // 2026-03-12
    .replace(/\b(\d{4})-(\d{2})-(\d{2})\b/g, (whole, year: string, month: string, day: string, offset: number) =>
      date(offset, Number(day), Number(month), Number(year), whole))
    // 12.03.2026, 12.03. (day first, the German way) and 12/03/2026 (03/12/2026 in American English)
    .replace(/\b(\d{1,2})([./])(\d{1,2})(?:\2(\d{4}|\d{2}))?(\.(?=\s+\p{Ll}|,))?(?=\.?(?!\d))/gu, (whole, first: string, separator: string, second: string, year: string | undefined, inner: string | undefined, offset: number, all: string) => {
      // "3.50" is a number and "1/2" a fraction: only a dotted date with its closing dot, or any date with a year.
      // The closing dot goes with the date inside a sentence and stays as the full stop at its end.
      if (year === undefined && !(separator === '.' && (inner !== undefined || all[offset + whole.length] === '.'))) return whole;
      const [day, month] = reading.dateOrder === 'mdy' ? [Number(second), Number(first)] : [Number(first), Number(second)];
      return date(offset, day, month, fullYear(year), whole);
    })
    // German "am 3. März 2026": the day is an ordinal, said as one.
    .replace(new RegExp(`\\b(\\d{1,2})\\.\\s+(${names.join('|')})(?:\\s+(\\d{4}))?`, 'g'), (whole, day: string, month: string, year: string | undefined, offset: number) =>
      pack.iso2 === 'de' ? date(offset, Number(day), names.indexOf(month) + 1, fullYear(year), whole) : whole)
    // 14:30 (German "14:30 Uhr" once: the words say "Uhr"), and the French 14h30 or 14h
    .replace(/\b([01]?\d|2[0-3])(?::([0-5]\d)\b(?!:\d)(\s+Uhr\b)?|h([0-5]\d)?\b)/g, (whole, hours: string, minutes: string | undefined, uhr: string | undefined, french: string | undefined) => {
      if (whole.includes('h') && !uhr && pack.iso2 !== 'fr') return whole;
      const words = reading.time(Number(hours), Number(minutes ?? french ?? 0));
      return uhr && pack.iso2 !== 'de' ? `${words}${uhr}` : words;
    })
    // €3.50, $ 1,250, £3
    .replace(new RegExp(`([€$£])\\s?${amount}\\b`, 'g'), (whole, currency: string, units: string, cents: string | undefined) => money(whole, units, cents, currency))
    // 3,50 €, 1.250 EUR, 20 euros, 5 USD
    .replace(new RegExp(`\\b${amount}\\s?(€|eur|euros?|usd|gbp|\\$|£)(?![\\p{L}])`, 'giu'), (whole, units: string, cents: string | undefined, currency: string) => money(whole, units, cents, currency));
}
