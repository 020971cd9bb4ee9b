/** The most of a receiver's answer kept on a call as its `webhook_response`. */
export const STORED_ANSWER_BYTES = 16 * 1024;

/**
 * What a call keeps of the answer to its post-call webhook (its `webhook_response`, a JSON object): a JSON object
 * the endpoint answered, as it is; anything else (another JSON value, text, an answer too long to keep whole)
 * as `{status_code, body}` with the value or the text, cut to STORED_ANSWER_BYTES.
 */
export function storedAnswer(statusCode: number, contentType: string, body: Buffer): Record<string, unknown> {
  const text = body.toString('utf8');
  if (body.length <= STORED_ANSWER_BYTES && (contentType === 'application/json' || contentType.endsWith('+json') || /^\s*[{[]/.test(text))) {
    try {
      const value: unknown = JSON.parse(text);
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
      return { status_code: statusCode, body: value };
    } catch {
      // Not JSON after all: kept as text below.
    }
  }
  return { status_code: statusCode, body: text.slice(0, STORED_ANSWER_BYTES) };
}
