import { isoTimestamp } from '../../lib/time.ts';
import type { AttemptRow, DeliveryRow } from '../../webhooks/deliveries.ts';

/** A delivery as the log shows it, with each of its attempts. */
export function deliveryItem(delivery: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: delivery.id,
    event_id: delivery.eventId,
    kind: delivery.kind,
    assistant_id: delivery.assistantId,
    call_id: delivery.callId,
    conversation_id: delivery.conversationId,
    redelivery_of: delivery.redeliveryOf,
    url: delivery.url,
    status: delivery.status,
    attempts_count: delivery.attempts,
    next_attempt_at: isoTimestamp(delivery.nextAttemptAt),
    last_error: delivery.lastError,
    payload: JSON.parse(delivery.payload) as unknown,
    attempts: attempts.map((attempt) => ({
      attempt: attempt.attempt,
      attempted_at: isoTimestamp(attempt.attemptedAt),
      status_code: attempt.statusCode,
      latency_ms: attempt.latencyMs,
      response_excerpt: attempt.responseExcerpt,
      error: attempt.error,
    })),
    created_at: isoTimestamp(delivery.createdAt),
    updated_at: isoTimestamp(delivery.updatedAt),
  };
}
