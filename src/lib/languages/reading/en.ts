import type { Currency, NumberReading } from '../types.ts';

const ones = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve',
  'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen'];
const tens = ['', '', 'twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];

function belowHundred(n: number): string {
  if (n < 20) return ones[n] as string;
  const unit = n % 10;
  return `${tens[Math.floor(n / 10)]}${unit ? `-${ones[unit]}` : ''}`;
}

function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds === 0) return belowHundred(rest);
  return `${ones[hundreds]} hundred${rest ? ` ${belowHundred(rest)}` : ''}`;
}

export function cardinal(n: number): string {
  if (n < 1000) return belowThousand(n);
  const parts: string[] = [];
  for (const [size, name] of [[1_000_000, 'million'], [1000, 'thousand']] as const) {
    if (n >= size) {
      parts.push(`${belowThousand(Math.floor(n / size))} ${name}`);
      n %= size;
    }
  }
  if (n) parts.push(belowThousand(n));
  return parts.join(' ');
}

const irregularOrdinals: Record<string, string> = {
  one: 'first', two: 'second', three: 'third', five: 'fifth', eight: 'eighth', nine: 'ninth', twelve: 'twelfth',
};

function ordinal(n: number): string {
  const words = cardinal(n);
  const last = /[a-z]+$/.exec(words)?.[0] ?? '';
  const head = words.slice(0, words.length - last.length);
  if (irregularOrdinals[last]) return head + irregularOrdinals[last];
  if (last.endsWith('y')) return `${head}${last.slice(0, -1)}ieth`;
  return `${words}th`;
}

const currencies: Record<Currency, [string, string, string, string]> = {
  EUR: ['euro', 'euros', 'cent', 'cents'],
  USD: ['dollar', 'dollars', 'cent', 'cents'],
  GBP: ['pound', 'pounds', 'penny', 'pence'],
};

export const englishReading: NumberReading = {
  cardinal,
  // 2026 "twenty twenty-six", 1999 "nineteen ninety-nine", 2005 "two thousand five", 1900 "nineteen hundred".
  year(n) {
    if (n >= 2000 && n < 2010) return cardinal(n);
    const [high, low] = [Math.floor(n / 100), n % 100];
    if (n < 1100 || n >= 10_000) return cardinal(n);
    if (low === 0) return `${cardinal(high)} hundred`;
    return `${cardinal(high)} ${low < 10 ? `oh ${cardinal(low)}` : cardinal(low)}`;
  },
  date: (day, month, year) => `${month} ${ordinal(day)}${year === undefined ? '' : `, ${englishReading.year(year)}`}`,
  time(hours, minutes) {
    if (minutes === 0) return `${cardinal(hours)} o'clock`;
    return `${cardinal(hours)} ${minutes < 10 ? `oh ${cardinal(minutes)}` : cardinal(minutes)}`;
  },
  money(units, cents, currency) {
    const [one, many, cent, centsName] = currencies[currency];
    const centWords = `${cents ? cardinal(cents) : ''} ${cents === 1 ? cent : centsName}`;
    if (units === 0 && cents) return centWords;
    const whole = `${cardinal(units)} ${units === 1 ? one : many}`;
    if (!cents) return whole;
    return `${whole} and ${centWords}`;
  },
  decimalWord: 'point',
  decimalSeparator: '.',
  dateOrder: 'mdy',
};
