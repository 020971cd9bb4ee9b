import type { Currency, NumberReading } from '../types.ts';

const ones = ['cero', 'uno', 'dos', 'tres', 'cuatro', 'cinco', 'seis', 'siete', 'ocho', 'nueve', 'diez', 'once', 'doce',
  'trece', 'catorce', 'quince', 'dieciséis', 'diecisiete', 'dieciocho', 'diecinueve', 'veinte', 'veintiuno', 'veintidós',
  'veintitrés', 'veinticuatro', 'veinticinco', 'veintiséis', 'veintisiete', 'veintiocho', 'veintinueve'];
const tens = ['', '', '', 'treinta', 'cuarenta', 'cincuenta', 'sesenta', 'setenta', 'ochenta', 'noventa'];
const hundreds = ['', 'ciento', 'doscientos', 'trescientos', 'cuatrocientos', 'quinientos', 'seiscientos', 'setecientos', 'ochocientos', 'novecientos'];

function belowHundred(n: number): string {
  if (n < 30) return ones[n] as string;
  const unit = n % 10;
  return `${tens[Math.floor(n / 10)]}${unit ? ` y ${ones[unit]}` : ''}`;
}

function belowThousand(n: number): string {
  if (n === 100) return 'cien';
  const rest = n % 100;
  const head = hundreds[Math.floor(n / 100)] as string;
  return [head, rest ? belowHundred(rest) : ''].filter(Boolean).join(' ');
}

/** "uno" loses its last letter before a noun, "mil" and "millones": "un euro", "veintiún mil", "un millón". */
function apocope(words: string): string {
  return words.replace(/uno$/, 'un').replace(/veintiun$/, 'veintiún');
}

export function cardinal(n: number): string {
  if (n === 0) return 'cero';
  const words: string[] = [];
  const millions = Math.floor(n / 1_000_000);
  if (millions) words.push(millions === 1 ? 'un millón' : `${apocope(belowThousand(millions))} millones`);
  const thousands = Math.floor((n % 1_000_000) / 1000);
  if (thousands) words.push(thousands === 1 ? 'mil' : `${apocope(belowThousand(thousands))} mil`);
  const units = n % 1000;
  if (units) words.push(belowThousand(units));
  return words.join(' ');
}

const currencies: Record<Currency, [string, string]> = { EUR: ['euro', 'euros'], USD: ['dólar', 'dólares'], GBP: ['libra', 'libras'] };

export const spanishReading: NumberReading = {
  cardinal,
  year: cardinal,
  // "doce de marzo de dos mil veintiséis"; the first of the month is "primero".
  date: (day, month, year) => `${day === 1 ? 'primero' : cardinal(day)} de ${month}${year === undefined ? '' : ` de ${cardinal(year)}`}`,
  time: (hours, minutes) => `${hours === 1 ? 'una' : cardinal(hours)}${minutes ? ` y ${cardinal(minutes)}` : ''}`,
  money(units, cents, currency) {
    const [one, many] = currencies[currency];
    const centsWords = cents ? `${apocope(cardinal(cents))} ${cents === 1 ? 'céntimo' : 'céntimos'}` : '';
    if (units === 0 && cents) return centsWords;
    const whole = `${apocope(cardinal(units))} ${units === 1 ? one : many}`;
    return cents ? `${whole} con ${centsWords}` : whole;
  },
  decimalWord: 'coma',
  decimalSeparator: ',',
  dateOrder: 'dmy',
};
