import { microsToUsd } from '../../lib/money.ts';
import { sqlTimestamp } from '../../lib/time.ts';
import type { SmsMessage } from './model.ts';

/** The answer to a message sent: the contract's fields (anchor-api.md §11). */
export function sentItem(message: SmsMessage) {
  return {
    sms_id: message.id,
    from: message.fromNumber,
    to: message.toNumber,
    body: message.body,
    segments: message.segments,
    cost: microsToUsd(message.costMicros),
    currency: 'USD' as const,
    status: 'sent' as const,
  };
}

/** One message of the list, sent or received, with where it is. */
export function smsItem(message: SmsMessage) {
  return {
    id: message.id,
    direction: message.direction,
    phone_number_id: message.phoneNumberId,
    from: message.fromNumber,
    to: message.toNumber,
    body: message.body,
    encoding: message.encoding,
    segments: message.segments,
    cost: microsToUsd(message.costMicros),
    currency: 'USD' as const,
    status: message.status,
    error_code: message.errorCode,
    error_message: message.errorMessage,
    sms_sid: message.providerMessageId,
    created_at: sqlTimestamp(message.createdAt),
    updated_at: sqlTimestamp(message.updatedAt),
  };
}
