import twilio from 'twilio';
import { RejectedError } from '../../lib/errors.ts';

/** A Twilio error answer: the HTTP status and Twilio's own error code (https://www.twilio.com/docs/errors). */
export function restError(error: unknown): { status: number; code?: number; message: string } | undefined {
  return error instanceof twilio.RestException ? { status: error.status, code: error.code, message: error.message } : undefined;
}

/**
 * A 4xx about the request itself (the number is taken, needs an address, is not valid) will not change when
 * asked again; credentials, rate limits and Twilio's own failures might, and stay errors to retry.
 */
export function carrierError(error: unknown, what: string): Error {
  const answer = restError(error);
  if (answer && answer.status >= 400 && answer.status < 500 && ![401, 403, 408, 429].includes(answer.status)) {
    return new RejectedError(`Twilio would not ${what}: ${answer.message}${answer.code ? ` (error ${answer.code})` : ''}.`);
  }
  return error instanceof Error ? error : new Error(String(error));
}
