/**
 * The WhatsApp read-receipt webhook's body (W3, anchor §13.3), every field, from a message's row and the
 * carrier's report. Pure: the caller reads the rows.
 */

/** The statuses a read receipt reports; the carrier's `queued` and the inbound `received` are not reported. */
export const RECEIPT_STATUSES = ['sent', 'delivered', 'read', 'failed', 'undelivered'] as const;
export type ReceiptStatus = typeof RECEIPT_STATUSES[number];

export interface ReadReceiptFacts {
  message: { id: number; fromNumber: string; toNumber: string; providerMessageId: string | null; status: ReceiptStatus; errorCode: string | null; errorMessage: string | null };
  conversationUuid: string | null;
  assistantUuid: string;
  sender: { id: number; phoneNumber: string; displayName: string };
  /** When Parley learned of the status. */
  at: Date;
  /** The carrier's own time of the status, when it gave one. */
  providerTimestamp: string | null;
  /** A test event from the sender's settings. */
  test?: boolean;
}

/** Twilio's WhatsApp error codes Parley can describe. */
const descriptions: Record<string, string> = {
  63003: 'The channel could not find the recipient: the number is not on WhatsApp.',
  63016: 'Outside the 24-hour session window a message must be an approved template.',
  63024: 'The recipient is not a valid WhatsApp user.',
  30008: 'Unknown error.',
};

export function readReceiptPayload(facts: ReadReceiptFacts): Record<string, unknown> {
  const { message } = facts;
  return {
    event: 'message_status',
    whatsapp_message_id: String(message.id),
    message_sid: message.providerMessageId,
    // Parley talks to Meta through a carrier, which does not hand Meta's own message id on.
    meta_message_id: null,
    conversation_id: facts.conversationUuid,
    assistant_id: facts.assistantUuid,
    sender: { id: facts.sender.id, phone_number: facts.sender.phoneNumber, display_name: facts.sender.displayName },
    to: message.toNumber,
    from: message.fromNumber,
    direction: 'outbound',
    status: message.status,
    error_code: message.errorCode,
    error_message: message.errorMessage,
    error_description: message.errorCode ? descriptions[message.errorCode] ?? null : null,
    timestamp: facts.at.toISOString(),
    provider_timestamp: facts.providerTimestamp,
    ...(facts.test ? { test: true } : {}),
  };
}
