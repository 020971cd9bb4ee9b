import { createHmac } from 'node:crypto';

/**
 * Twilio's `X-Twilio-Signature`: base64 HMAC-SHA1, keyed by the auth token, of the full URL Twilio requested
 * followed by each POST parameter's name and value, sorted by name (repeated names by value).
 * https://www.twilio.com/docs/usage/webhooks/webhooks-security
 */
export function twilioSignatureOf(authToken: string, url: string, params: Iterable<[string, string]>): string {
  const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const sorted = [...params].sort(([nameA, valueA], [nameB, valueB]) => compare(nameA, nameB) || compare(valueA, valueB));
  const hmac = createHmac('sha1', authToken).update(url, 'utf8');
  for (const [name, value] of sorted) hmac.update(name + value, 'utf8');
  return hmac.digest('base64');
}
