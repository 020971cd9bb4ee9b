/**
 * What the sandbox carrier charges for a call, as carriers price voice: a per-minute rate by the country of the
 * number dialled (an outbound call) or of the number rung (an inbound call), billed per started minute once the
 * callee answered. Rates near what carriers charge for local numbers (USD micro-dollars a minute).
 */
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

interface Rate {
  outbound: number;
  inbound: number;
}

const RATES: Record<string, Rate> = {
  US: { outbound: 14_000, inbound: 8_500 },
  CA: { outbound: 14_000, inbound: 8_500 },
  GB: { outbound: 16_000, inbound: 10_000 },
  DE: { outbound: 30_000, inbound: 10_000 },
  AU: { outbound: 24_000, inbound: 10_000 },
  IL: { outbound: 60_000, inbound: 10_000 },
  PL: { outbound: 30_000, inbound: 10_000 },
  FI: { outbound: 40_000, inbound: 10_000 },
  NL: { outbound: 35_000, inbound: 10_000 },
  DK: { outbound: 30_000, inbound: 10_000 },
  IT: { outbound: 30_000, inbound: 10_000 },
};

/** A country the sandbox lists no rate for. */
const OTHER: Rate = { outbound: 100_000, inbound: 10_000 };

/**
 * The price of a call in micro-dollars: `answeredMs` of talk from the answer to the hang-up, at the rate of
 * `priced`'s country (the callee for an outbound call, Parley's number for an inbound one).
 */
export function sandboxCallPriceMicros(direction: 'outbound-api' | 'inbound', priced: string, answeredMs: number): number {
  const country = parsePhoneNumberFromString(priced)?.country;
  const rate = (country ? RATES[country] : undefined) ?? OTHER;
  const minutes = Math.ceil(Math.max(answeredMs, 0) / 60_000);
  return minutes * (direction === 'inbound' ? rate.inbound : rate.outbound);
}
