/** How the console writes numbers, money, times and durations: the same everywhere. */

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });

export function money(amount: number | null | undefined): string {
  return amount === null || amount === undefined ? '—' : usd.format(amount);
}

export function ms(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${Math.round(value)} ms`;
}

export function seconds(total: number | null | undefined): string {
  if (total === null || total === undefined) return '—';
  const minutes = Math.floor(total / 60);
  const rest = Math.round(total % 60);
  return minutes > 0 ? `${minutes} min ${rest} s` : `${rest} s`;
}

export function percent(fraction: number | null | undefined): string {
  return fraction === null || fraction === undefined ? '—' : `${Math.round(fraction * 100)} %`;
}

/**
 * A timestamp of the API in the reader's local time: ISO 8601 (`…Z`) or the calls' and leads' UTC
 * `YYYY-MM-DD HH:MM:SS`.
 */
export function when(value: string | null | undefined): string {
  if (!value) return '—';
  const date = new Date(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
  if (Number.isNaN(date.getTime())) return value;
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** An offset in the call, `m:ss.s`. */
export function offset(milliseconds: number): string {
  const totalSeconds = Math.max(0, milliseconds) / 1000;
  const minutes = Math.floor(totalSeconds / 60);
  return `${minutes}:${(totalSeconds % 60).toFixed(1).padStart(4, '0')}`;
}

/** A metric's name as words: `llm_first_token_ms` → `llm first token`. */
export function metricLabel(name: string): string {
  return name.replace(/_ms$/, '').replace(/_/g, ' ');
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}
