/**
 * What a silent line leads to. While nobody speaks and the assistant waits for the caller, two clocks run:
 * re-engagement counts from the last time anyone spoke (so after the assistant re-engages, the next interval
 * starts), and the silence limit counts from the last time the caller spoke (re-engaging does not reset it).
 */

export interface SilencePolicy {
  reengagementMs: number;
  maxSilenceMs: number;
}

export interface SilenceClocks {
  /** When the caller last spoke (or the call began). */
  callerSpokeAt: number;
  /** When anyone last spoke: the caller, or the assistant finishing an utterance. */
  anyoneSpokeAt: number;
}

export interface SilenceAction {
  action: 'reengage' | 'end';
  at: number;
}

/** The next thing silence will do, and when. */
export function nextSilenceAction(policy: SilencePolicy, clocks: SilenceClocks): SilenceAction {
  const end = clocks.callerSpokeAt + policy.maxSilenceMs;
  const reengage = clocks.anyoneSpokeAt + policy.reengagementMs;
  return reengage < end ? { action: 'reengage', at: reengage } : { action: 'end', at: end };
}
