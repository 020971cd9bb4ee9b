/**
 * Money is kept as integer micro-dollars (1 USD = 1,000,000) so sums are exact; USD appears only at the edges.
 */
export const MICROS_PER_USD = 1_000_000;

export function usdToMicros(usd: number): number {
  if (!Number.isFinite(usd)) throw new RangeError(`not an amount: ${usd}`);
  return Math.round(usd * MICROS_PER_USD);
}

/** Micro-dollars as a USD JSON number, exact to the micro-dollar. */
export function microsToUsd(micros: number): number {
  return Number((micros / MICROS_PER_USD).toFixed(6));
}

/** Parses a decimal USD string such as `12`, `-3.5` or `0.000001`; anything else is `undefined`. */
export function parseUsd(text: string): number | undefined {
  const match = /^(-)?(\d{1,12})(?:\.(\d{1,6}))?$/.exec(text.trim());
  if (!match) return undefined;
  const micros = Number(match[2]) * MICROS_PER_USD + Number((match[3] ?? '').padEnd(6, '0'));
  return match[1] ? -micros : micros;
}
