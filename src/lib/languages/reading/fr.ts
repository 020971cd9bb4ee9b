import type { Currency, NumberReading } from '../types.ts';

const ones = ['zéro', 'un', 'deux', 'trois', 'quatre', 'cinq', 'six', 'sept', 'huit', 'neuf', 'dix', 'onze', 'douze',
  'treize', 'quatorze', 'quinze', 'seize', 'dix-sept', 'dix-huit', 'dix-neuf'];
const tens = ['', '', 'vingt', 'trente', 'quarante', 'cinquante', 'soixante'];

/** 1..99; `final`: nothing follows, so "quatre-vingts" keeps its s. */
function belowHundred(n: number, final: boolean): string {
  if (n < 20) return ones[n] as string;
  if (n >= 80) {
    const rest = n - 80;
    return rest === 0 ? (final ? 'quatre-vingts' : 'quatre-vingt') : `quatre-vingt-${ones[rest]}`;
  }
  // 70..79 count on from soixante: soixante-dix, soixante et onze.
  const ten = n >= 70 ? 6 : Math.floor(n / 10);
  const unit = n - ten * 10;
  if (unit === 0) return tens[ten] as string;
  if (unit === 1 || unit === 11) return `${tens[ten]} et ${ones[unit]}`;
  return `${tens[ten]}-${ones[unit]}`;
}

function belowThousand(n: number, final: boolean): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  const head = hundreds === 0 ? '' : hundreds === 1 ? 'cent' : `${ones[hundreds]} cent${rest === 0 && final ? 's' : ''}`;
  return [head, rest ? belowHundred(rest, final) : ''].filter(Boolean).join(' ');
}

export function cardinal(n: number): string {
  if (n === 0) return 'zéro';
  const words: string[] = [];
  const millions = Math.floor(n / 1_000_000);
  if (millions) words.push(`${belowThousand(millions, true)} ${millions === 1 ? 'million' : 'millions'}`);
  const thousands = Math.floor((n % 1_000_000) / 1000);
  if (thousands) words.push(thousands === 1 ? 'mille' : `${belowThousand(thousands, false)} mille`);
  const units = n % 1000;
  if (units) words.push(belowThousand(units, true));
  return words.join(' ');
}

const currencies: Record<Currency, [string, string]> = { EUR: ['euro', 'euros'], USD: ['dollar', 'dollars'], GBP: ['livre', 'livres'] };

export const frenchReading: NumberReading = {
  cardinal,
  year: cardinal,
  // "douze mars deux mille vingt-six"; the first of the month is "premier".
  date: (day, month, year) => `${day === 1 ? 'premier' : cardinal(day)} ${month}${year === undefined ? '' : ` ${cardinal(year)}`}`,
  time: (hours, minutes) => `${hours === 1 ? 'une' : cardinal(hours)} ${hours === 1 ? 'heure' : 'heures'}${minutes ? ` ${cardinal(minutes)}` : ''}`,
  money(units, cents, currency) {
    const [one, many] = currencies[currency];
    const centsWords = cents ? `${cardinal(cents)} ${cents === 1 ? 'centime' : 'centimes'}` : '';
    if (units === 0 && cents) return centsWords;
    const whole = `${cardinal(units)} ${units === 1 ? one : many}`;
    return cents ? `${whole} et ${centsWords}` : whole;
  },
  decimalWord: 'virgule',
  decimalSeparator: ',',
  dateOrder: 'dmy',
};
