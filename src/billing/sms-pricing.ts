/**
 * How a text message is split into segments, and what it costs. Pure, so the arithmetic is tested on its own.
 *
 * A message that fits in one SMS carries 160 GSM-7 characters (7-bit septets) or 70 UCS-2 code units; a longer one
 * is sent as parts, each giving up room to the header that reassembles them: 153 septets or 67 code units a
 * part (3GPP TS 23.038 and 23.040, and what Twilio bills). A message is GSM-7 when every character is in the
 * GSM default alphabet or its extension table (whose characters take two septets: an escape, then the
 * character); one character outside both makes the whole message UCS-2, where a character beyond the Basic
 * Multilingual Plane (an emoji) takes two code units. A character is never split between two parts: when its
 * two septets or two code units do not both fit, the part ends early.
 */

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export interface SmsSegments {
  encoding: SmsEncoding;
  /** Septets (GSM-7) or UTF-16 code units (UCS-2) of the whole message. */
  units: number;
  segments: number;
}

/** The GSM 03.38 default alphabet (the escape to the extension table left out: it is not a character). */
const GSM_BASIC = new Set('@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà');

/** The extension table: each is sent as the escape septet followed by its own. */
const GSM_EXTENDED = new Set('\f^{}\\[~]|€');

const capacity: Record<SmsEncoding, { single: number; part: number }> = {
  'GSM-7': { single: 160, part: 153 },
  'UCS-2': { single: 70, part: 67 },
};

export function isGsm7(text: string): boolean {
  for (const character of text) if (!GSM_BASIC.has(character) && !GSM_EXTENDED.has(character)) return false;
  return true;
}

/** The segments `body` is sent as; an empty message is still one. */
export function smsSegments(body: string): SmsSegments {
  const encoding: SmsEncoding = isGsm7(body) ? 'GSM-7' : 'UCS-2';
  // Iterating a string goes by code point: a surrogate pair is one character of length 2.
  const sizes = [...body].map((character) => (encoding === 'GSM-7' ? (GSM_EXTENDED.has(character) ? 2 : 1) : character.length));
  const units = sizes.reduce((sum, size) => sum + size, 0);
  const { single, part } = capacity[encoding];
  if (units <= single) return { encoding, units, segments: 1 };
  let segments = 1;
  let used = 0;
  for (const size of sizes) {
    if (used + size > part) {
      segments += 1;
      used = 0;
    }
    used += size;
  }
  return { encoding, units, segments };
}

/** What `segments` cost at `perSegmentMicros` a segment. */
export function smsCostMicros(segments: number, perSegmentMicros: number): number {
  if (!Number.isInteger(segments) || segments < 1) throw new RangeError(`not a number of segments: ${segments}`);
  if (!Number.isInteger(perSegmentMicros) || perSegmentMicros < 0) throw new RangeError(`not a price: ${perSegmentMicros}`);
  return segments * perSegmentMicros;
}
