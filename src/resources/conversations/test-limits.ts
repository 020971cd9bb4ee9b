import type { ResolveToken } from '../../api/middleware/auth.ts';
import type { RateLimiter } from '../../db/rate-limiter.ts';
import { UsageLimitError } from '../../lib/errors.ts';

/**
 * How many free test messages anyone who knows an assistant's public UUID may send: test chats cost the
 * owner model calls without charging anyone, so they are limited per assistant and per client address.
 */
export interface TestChatLimits {
  perAssistantPerHour: number;
  perAddressPerMinute: number;
}

export interface TestChatGate {
  limiter: RateLimiter;
  limits: TestChatLimits;
  /** Names the caller of a bearer credential: the assistant's owner is not limited. */
  resolveToken: ResolveToken;
}

/** Who sends a test message: the client address, and the bearer credential if the request carries one. */
export interface TestMessageSender {
  clientIp: string;
  bearer: string | undefined;
}

/**
 * Lets a test message through, or refuses it with 429 and Retry-After. The owner's own API key or session
 * token lifts both limits; the address is counted first, so one address spending its budget leaves the
 * assistant's for everyone else.
 */
export async function admitTestMessage(
  gate: TestChatGate,
  assistant: { assistantId: number; ownerId: number },
  sender: TestMessageSender,
): Promise<void> {
  if (sender.bearer !== undefined && (await gate.resolveToken(sender.bearer))?.user.id === assistant.ownerId) return;
  const byAddress = await gate.limiter.hit(`test-chat:ip:${sender.clientIp}`, { limit: gate.limits.perAddressPerMinute, periodMs: 60_000 });
  if (!byAddress.allowed) {
    throw new UsageLimitError('Too many test messages from this address. Please wait a moment.', byAddress.retryAfterSeconds);
  }
  const byAssistant = await gate.limiter.hit(`test-chat:assistant:${assistant.assistantId}`, {
    limit: gate.limits.perAssistantPerHour,
    periodMs: 3_600_000,
  });
  if (!byAssistant.allowed) {
    throw new UsageLimitError(
      'This assistant has used up its free test messages for now. Its owner can keep testing with their API key.',
      byAssistant.retryAfterSeconds,
    );
  }
}
