import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * A phone number as people write it, in E.164 (`+14155550123`), or undefined when it is not a valid number.
 * Spaces, dashes, dots and brackets between the digits are dropped; the country code is required, written
 * with `+` or `00`, or as bare digits (as spreadsheets keep numbers, having dropped the `+`): without a
 * country there is no telling which one a national number belongs to.
 */
export function toE164(written: string): string | undefined {
  const compact = written.trim().replace(/[\s().-]/g, '');
  const digits = /^(?:\+|00)?([1-9]\d{6,14})$/.exec(compact)?.[1];
  if (!digits) return undefined;
  const parsed = parsePhoneNumberFromString(`+${digits}`);
  return parsed?.isValid() ? parsed.number : undefined;
}
