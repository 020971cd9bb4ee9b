/** What a hang-up request found: the session was asked to end, or there is no session to end. */
export type HangUpOutcome = 'requested' | 'gone';

/** The media gateway's control side, as the call workflow's activities reach it. */
export interface MediaControl {
  /**
   * Asks the media replica at `sessionUrl` (its internal base URL, as the call row names it) to end the call's
   * session. A 404 or a replica that cannot be reached means the session is gone; any other refusal throws.
   */
  hangUp(input: { sessionUrl: string; callId: number; reason: string; signal?: AbortSignal }): Promise<HangUpOutcome>;
}

export class MediaControlError extends Error {
  override name = 'MediaControlError';
}

/** How long a hang-up request may take: the replica answers at once, or it is as good as gone. */
const requestTimeoutMs = 5000;

/**
 * Over HTTP with the deployment's media control token (lib/media-control.ts). Replicas are internal
 * addresses the platform itself recorded, not user input, so this is plain `fetch`, not the guarded client.
 * `token` is asked for at the first hang-up, so a process that never hangs up never resolves the app key.
 */
export function createMediaControl(token: () => string): MediaControl {
  return {
    async hangUp({ sessionUrl, callId, reason, signal }) {
      const url = `${sessionUrl.replace(/\/+$/, '')}/media/calls/${callId}/hangup`;
      const timeout = AbortSignal.timeout(requestTimeoutMs);
      let response: Response;
      try {
        response = await fetch(url, {
          method: 'POST',
          headers: { Authorization: `Bearer ${token()}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ reason }),
          signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
        });
      } catch (error) {
        if (signal?.aborted) throw error;
        return 'gone';
      }
      await response.body?.cancel();
      if (response.ok) return 'requested';
      if (response.status === 404) return 'gone';
      throw new MediaControlError(`The media gateway refused to hang up call ${callId}: HTTP ${response.status}.`);
    },
  };
}
