import type { Currency, NumberReading } from '../types.ts';

const ones = ['null', 'eins', 'zwei', 'drei', 'vier', 'fünf', 'sechs', 'sieben', 'acht', 'neun', 'zehn', 'elf', 'zwölf',
  'dreizehn', 'vierzehn', 'fünfzehn', 'sechzehn', 'siebzehn', 'achtzehn', 'neunzehn'];
const tens = ['', '', 'zwanzig', 'dreißig', 'vierzig', 'fünfzig', 'sechzig', 'siebzig', 'achtzig', 'neunzig'];

/** 1..99 inside a compound word: "ein" before "und", "hundert" and "tausend", "eins" only at the end. */
function belowHundred(n: number, final: boolean): string {
  if (n === 1) return final ? 'eins' : 'ein';
  if (n < 20) return ones[n] as string;
  const unit = n % 10;
  return `${unit ? `${unit === 1 ? 'ein' : ones[unit]}und` : ''}${tens[Math.floor(n / 10)]}`;
}

function belowThousand(n: number, final: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  return `${hundreds ? `${hundreds === 1 ? 'ein' : ones[hundreds]}hundert` : ''}${rest ? belowHundred(rest, final) : ''}`;
}

export function cardinal(n: number): string {
  if (n === 0) return 'null';
  const words: string[] = [];
  const millions = Math.floor(n / 1_000_000);
  if (millions) words.push(millions === 1 ? 'eine Million' : `${belowThousand(millions, false)} Millionen`);
  const rest = n % 1_000_000;
  const thousands = Math.floor(rest / 1000);
  const units = rest % 1000;
  const word = `${thousands ? `${belowThousand(thousands, false)}tausend` : ''}${units ? belowThousand(units, true) : ''}`;
  if (word) words.push(word);
  return words.join(' ');
}

/** The ordinal's stem: "erst", "zweit", "dritt", "siebt", "acht", 4..19 + "t", from 20 on + "st". */
function ordinalStem(n: number): string {
  const special: Record<number, string> = { 1: 'erst', 3: 'dritt', 7: 'siebt', 8: 'acht' };
  if (n < 20) return special[n] ?? `${cardinal(n)}t`;
  return `${cardinal(n)}st`;
}

const currencies: Record<Currency, [string, string, string]> = {
  EUR: ['Euro', 'Euro', 'Cent'],
  USD: ['Dollar', 'Dollar', 'Cent'],
  GBP: ['Pfund', 'Pfund', 'Pence'],
};

/** After these words the day is dative: "am zwölften März". */
const dative = new Set(['am', 'vom', 'zum', 'bis', 'ab', 'seit', 'zwischen', 'dem']);

export const germanReading: NumberReading = {
  cardinal,
  // 1999 "neunzehnhundertneunundneunzig"; from 2000 on as a number.
  year: (n) => (n >= 1100 && n < 2000 ? `${cardinal(Math.floor(n / 100))}hundert${n % 100 ? belowHundred(n % 100, true) : ''}` : cardinal(n)),
  date: (day, month, year, before) =>
    `${ordinalStem(day)}${dative.has(before) ? 'en' : 'e'} ${month}${year === undefined ? '' : ` ${germanReading.year(year)}`}`,
  time: (hours, minutes) => `${hours === 1 ? 'ein' : cardinal(hours)} Uhr${minutes ? ` ${cardinal(minutes)}` : ''}`,
  money(units, cents, currency) {
    const [one, many, cent] = currencies[currency];
    if (units === 0 && cents) return `${cardinal(cents)} ${cent}`;
    // "drei Euro fünfzig": the cents follow the unit without their name.
    return `${units === 1 ? 'ein' : cardinal(units)} ${units === 1 ? one : many}${cents ? ` ${cardinal(cents)}` : ''}`;
  },
  decimalWord: 'Komma',
  decimalSeparator: ',',
  dateOrder: 'dmy',
};
