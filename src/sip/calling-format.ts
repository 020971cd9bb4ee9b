import { parsePhoneNumberFromString } from 'libphonenumber-js/max';

export type CallingFormat = '+e164' | 'e164' | 'national';

/**
 * A number as a trunk wants it in SIP (its `sip_calling_format`): `+e164` with the plus (`+4930123456`), `e164`
 * the same digits without it (`4930123456`), `national` as dialled inside the number's country, digits only
 * (`030123456`, `2015550123`). What is not an E.164 number (an extension) is left as it is.
 */
export function formatForTrunk(number: string, format: CallingFormat): string {
  if (!/^\+[1-9]\d{6,14}$/.test(number)) return number;
  switch (format) {
    case '+e164':
      return number;
    case 'e164':
      return number.slice(1);
    case 'national': {
      const parsed = parsePhoneNumberFromString(number);
      return parsed ? parsed.formatNational().replace(/\D/g, '') : number.slice(1);
    }
  }
}

/**
 * The ways a carrier may write one of a trunk's numbers in a Request-URI: with or without the `+` (both are
 * matched), as given for anything else (an extension).
 */
export function numberVariants(user: string): string[] {
  const digits = user.replace(/^\+/, '');
  if (!/^[1-9]\d{6,14}$/.test(digits)) return [user];
  return [`+${digits}`, digits];
}
