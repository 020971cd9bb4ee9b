/**
 * The one table from our error codes (src/lib/errors.ts) to WebSocket close codes. Standard codes where the
 * protocol has one (RFC 6455 §7.4.1); otherwise 4000 plus the HTTP status the API answers the same error
 * with, so a client reads a closed media stream the way it reads a failed request.
 */
import { DomainError, type ErrorCode } from '../lib/errors.ts';

const closeCodes: Record<ErrorCode, number> = {
  // A message that is not the Media Streams protocol.
  bad_request: 1002,
  // Well-formed but not served, such as audio in a format Parley does not speak.
  rejected: 1003,
  too_large: 1009,
  unauthenticated: 4401,
  forbidden: 4403,
  not_found: 4404,
  conflict: 4409,
  validation: 4422,
  unprocessable: 4422,
  plan_limit: 4402,
  insufficient_balance: 4402,
  call_unaffordable: 4402,
  payment_required: 4402,
  rate_limited: 4429,
  usage_limited: 4429,
  provider_failed: 1011,
  provider_refused: 1011,
  // Try again later: the same call may be served by another replica or once the provider is back.
  provider_unavailable: 1013,
};

/** The close frame's reason is at most 123 bytes of UTF-8. */
const MAX_REASON_BYTES = 123;

export interface CloseFrame {
  code: number;
  reason: string;
}

function truncated(text: string): string {
  if (Buffer.byteLength(text) <= MAX_REASON_BYTES) return text;
  let end = text.length;
  while (end > 0 && Buffer.byteLength(`${text.slice(0, end)}…`) > MAX_REASON_BYTES) end--;
  return `${text.slice(0, end)}…`;
}

/** How a socket is closed because of `error`: a domain error by its code and message, anything else as 1011. */
export function closeFrameFor(error: unknown): CloseFrame {
  if (error instanceof DomainError) return { code: closeCodes[error.code], reason: truncated(error.message) };
  return { code: 1011, reason: 'Internal error.' };
}
