/**
 * What a campaign does with a lead after one of its calls: the lead is done, is called again after the retry
 * interval, or has had all its retries. Pure, so the campaign workflow replays it and tests pin every case.
 *
 * - `max_retries` counts the calls after the first: with 3, a lead is called at most four times.
 * - Busy, unanswered and failed calls are retried. A voicemail box is retried only with `retry_on_voicemail`;
 *   otherwise the message left there completes the lead.
 * - A call the person answered completes the lead, unless the campaign has a `goal_completion_variable` and
 *   `retry_on_goal_incomplete`: then only the evaluation's variable being true does; a false or missing one
 *   is retried like an unanswered call.
 */

export interface RetryPolicy {
  maxRetries: number;
  /** `retry_interval`, in ms (minutes in production; seconds under CAMPAIGN_RETRY_UNIT=second). */
  retryIntervalMs: number;
  retryOnVoicemail: boolean;
  retryOnGoalIncomplete: boolean;
  goalCompletionVariable: string | null;
}

/** A campaign's retry settings, as its row holds them (`retry_interval` in minutes). */
export interface RetrySettings {
  maxRetries: number;
  retryInterval: number;
  retryOnVoicemail: boolean;
  retryOnGoalIncomplete: boolean;
  goalCompletionVariable: string | null;
}

/** The retry policy of a campaign's settings; `retryUnitMs` is a minute, or a second under CAMPAIGN_RETRY_UNIT=second. */
export function retryPolicyOf(campaign: RetrySettings, retryUnitMs: number): RetryPolicy {
  const { maxRetries, retryInterval, retryOnVoicemail, retryOnGoalIncomplete, goalCompletionVariable } = campaign;
  return { maxRetries, retryIntervalMs: retryInterval * retryUnitMs, retryOnVoicemail, retryOnGoalIncomplete, goalCompletionVariable };
}

/** How a lead's call ended, as its call record shows it. */
export interface CallOutcome {
  /** The call's final status: `completed`, `ended_by_customer`, `ended_by_assistant`, `busy`, `no-answer`, `failed`… */
  status: string;
  answeredBy: 'human' | 'machine' | 'unknown' | null;
  /** The post-call evaluation's variables, when the call was evaluated. */
  evaluation: Record<string, unknown> | null;
}

export type LeadNext =
  | { kind: 'completed'; reason: string }
  | { kind: 'retry'; at: Date; reason: string }
  | { kind: 'exhausted'; reason: string };

const NOT_REACHED = new Set(['busy', 'no-answer', 'failed']);

/** Whether the goal variable of an evaluation is met: true, or the text `true` some models write. */
function goalMet(evaluation: Record<string, unknown> | null, variable: string): boolean {
  const value = evaluation?.[variable];
  return value === true || (typeof value === 'string' && value.trim().toLowerCase() === 'true');
}

/** Why the call calls for another try, or null when it completes the lead. */
function retryReason(policy: RetryPolicy, outcome: CallOutcome): string | null {
  if (NOT_REACHED.has(outcome.status)) return outcome.status;
  if (outcome.answeredBy === 'machine') return policy.retryOnVoicemail ? 'voicemail' : null;
  if (policy.goalCompletionVariable && policy.retryOnGoalIncomplete && !goalMet(outcome.evaluation, policy.goalCompletionVariable)) return 'goal incomplete';
  return null;
}

/** What comes next for a lead whose `callsMade`-th call (counting this one) ended at `endedAt` with `outcome`. */
export function nextForLead(policy: RetryPolicy, callsMade: number, outcome: CallOutcome, endedAt: Date): LeadNext {
  const reason = retryReason(policy, outcome);
  if (reason === null) return { kind: 'completed', reason: outcome.answeredBy === 'machine' ? 'voicemail' : outcome.status };
  if (callsMade > policy.maxRetries) return { kind: 'exhausted', reason };
  return { kind: 'retry', at: new Date(endedAt.getTime() + policy.retryIntervalMs), reason };
}
