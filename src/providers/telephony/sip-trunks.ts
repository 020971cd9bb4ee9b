import { randomBytes } from 'node:crypto';
import { RejectedError } from '../../lib/errors.ts';
import type { CallRequest, CarrierCalls, DialAttempt, TransferRequest, WarmTransferRequest } from './types.ts';

/**
 * The calls of SIP trunks, placed by Parley's own SIP gateway (the `sip` role) rather than by the deployment's
 * carrier: the same `CarrierCalls` the workflow and the media role use for Twilio and the sandbox, over the sip
 * role's control API (src/roles/sip.ts) with the deployment's sip control token. The sip role reports each
 * call's status to the call's workflow itself, so `statusCallbackUrl` is not used; what the trunk's carrier
 * charges is billed to the user by that carrier, not through Parley, so a call's carrier price is 0.
 */
export interface SipTrunkCarrierOptions {
  /** The sip role's control API (SIP_CONTROL_URL, or where the role of this process listens). */
  url: () => string;
  token: () => string;
}

/** The ids the SIP gateway gives its calls: `SIP` and 32 hex digits, as Twilio's are `CA` and 32. */
export const SIP_CALL_SID = /^SIP[0-9a-f]{32}$/;

export function newSipCallSid(): string {
  return `SIP${randomBytes(16).toString('hex')}`;
}

export function isSipCallSid(providerCallId: string | null | undefined): boolean {
  return providerCallId !== null && providerCallId !== undefined && SIP_CALL_SID.test(providerCallId);
}

export class SipControlError extends Error {
  override name = 'SipControlError';
}

/** How long a control request may take: the role answers once the gateway has the request, not when the call ends. */
const requestTimeoutMs = 15_000;

export function createSipTrunkCarrier(options: SipTrunkCarrierOptions): CarrierCalls {
  async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${options.url()}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${options.token()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: text ? JSON.parse(text) as Record<string, unknown> : {} };
    } catch {
      return { status: response.status, body: { message: text.slice(0, 200) } };
    }
  }

  function refusal(what: string, answer: { status: number; body: Record<string, unknown> }): Error {
    const message = typeof answer.body.message === 'string' ? answer.body.message : `HTTP ${answer.status}`;
    // 4xx: the request itself cannot succeed (no such trunk, a number it will not dial); 5xx: try again.
    return answer.status >= 400 && answer.status < 500 ? new RejectedError(message) : new SipControlError(`The SIP gateway could not ${what}: ${message}`);
  }

  return {
    async placeCall(request: CallRequest, attempt: DialAttempt) {
      const answer = await post('/sip/calls', {
        from: request.from,
        to: request.to,
        callId: request.callId,
        stream: request.stream,
        ringTimeoutSeconds: request.ringTimeoutSeconds,
        attempt: { key: attempt.key, since: attempt.since.toISOString(), retried: attempt.retried },
      });
      if (answer.status !== 200 || typeof answer.body.callSid !== 'string') throw refusal('place the call', answer);
      return { providerCallId: answer.body.callSid };
    },
    async endCall(providerCallId: string) {
      const answer = await post(`/sip/calls/${providerCallId}/hangup`, {});
      // 404: the gateway holds no such call any more, which is what was asked.
      if (answer.status !== 200 && answer.status !== 404) throw refusal('end the call', answer);
    },
    async transferCall(providerCallId: string, request: TransferRequest) {
      const answer = await post(`/sip/calls/${providerCallId}/transfer`, { to: request.to, ringTimeoutSeconds: request.ringTimeoutSeconds });
      if (answer.status !== 200) throw refusal('transfer the call', answer);
    },
    /** The gateway holds the caller itself and dials the supervisor through the call's trunk (src/sip/outbound.ts). */
    async warmTransfer(providerCallId: string, request: WarmTransferRequest) {
      const answer = await post(`/sip/calls/${providerCallId}/warm-transfer`, {
        to: request.to,
        callerId: request.callerId,
        ringTimeoutSeconds: request.ringTimeoutSeconds,
        holdMusicVolume: request.holdMusicVolume ?? null,
        briefing: request.briefing,
        connectedMessage: request.connectedMessage,
      });
      if (answer.status !== 200 || typeof answer.body.supervisorCallId !== 'string') throw refusal('hold the call for the supervisor', answer);
      return { supervisorCallId: answer.body.supervisorCallId };
    },
    callPrice() {
      return Promise.resolve(0);
    },
  };
}
