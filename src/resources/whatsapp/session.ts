/**
 * The 24-hour customer service window (Meta's rule): after a customer's message a business may write to them
 * freely for 24 hours; outside it only an approved template opens the conversation again. Pure.
 */

export const SESSION_WINDOW_MS = 24 * 60 * 60 * 1000;

/** The `session_status` object of anchor §12.7. */
export interface SessionStatus {
  is_open: boolean;
  can_send_freeform: boolean;
  requires_template: boolean;
  message: string;
  /** Whole minutes left, rounded down; 0 when closed. */
  minutes_remaining: number;
  /** ISO 8601; null when the customer never wrote. */
  expires_at: string | null;
}

export function sessionStatus(lastCustomerMessageAt: Date | null, now: Date): SessionStatus {
  const expiresAt = lastCustomerMessageAt ? new Date(lastCustomerMessageAt.getTime() + SESSION_WINDOW_MS) : null;
  const leftMs = expiresAt ? expiresAt.getTime() - now.getTime() : 0;
  const open = leftMs > 0;
  return {
    is_open: open,
    can_send_freeform: open,
    requires_template: !open,
    message: open
      ? 'The 24-hour session is open: free-form messages can be sent.'
      : expiresAt
        ? 'The 24-hour session has expired: send an approved template to reopen the conversation.'
        : 'No session: the customer has not written yet. Send an approved template to start the conversation.',
    minutes_remaining: open ? Math.floor(leftMs / 60_000) : 0,
    expires_at: expiresAt ? expiresAt.toISOString() : null,
  };
}

/** The placeholders of a template's text, `{{1}}`, `{{2}}`…, as their numbers in order, each once. */
export function templateVariables(bodyText: string): string[] {
  const found = [...bodyText.matchAll(/\{\{\s*(\d{1,2})\s*\}\}/g)].map((match) => String(Number(match[1])));
  return [...new Set(found)].sort((a, b) => Number(a) - Number(b));
}

/** The template's text with its placeholders filled; a placeholder without a value is left as written. */
export function renderTemplate(bodyText: string, values: Record<string, string>): string {
  return bodyText.replace(/\{\{\s*(\d{1,2})\s*\}\}/g, (written, number: string) => values[String(Number(number))] ?? written);
}
