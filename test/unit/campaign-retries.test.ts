import { describe, expect, it } from 'vitest';
import { nextForLead, type CallOutcome, type RetryPolicy } from '../../src/campaigns/retries.ts';

const policy: RetryPolicy = { maxRetries: 2, retryIntervalMs: 60 * 60_000, retryOnVoicemail: false, retryOnGoalIncomplete: false, goalCompletionVariable: null };
const endedAt = new Date('2026-11-24T10:00:00Z');
const person = (evaluation: Record<string, unknown> | null = null): CallOutcome => ({ status: 'ended_by_customer', answeredBy: 'human', evaluation });
const voicemail: CallOutcome = { status: 'ended_by_assistant', answeredBy: 'machine', evaluation: null };

describe('what follows a lead\'s call', () => {
  it('completes a lead whose call was answered, whoever hung up', () => {
    for (const status of ['completed', 'ended_by_customer', 'ended_by_assistant']) {
      expect(nextForLead(policy, 1, { status, answeredBy: 'human', evaluation: null }, endedAt)).toEqual({ kind: 'completed', reason: status });
    }
  });

  it('calls busy, unanswered and failed leads again after the interval, max_retries times after the first', () => {
    for (const status of ['busy', 'no-answer', 'failed']) {
      const outcome: CallOutcome = { status, answeredBy: null, evaluation: null };
      expect(nextForLead(policy, 1, outcome, endedAt)).toEqual({ kind: 'retry', at: new Date('2026-11-24T11:00:00Z'), reason: status });
      expect(nextForLead(policy, 2, outcome, endedAt)).toMatchObject({ kind: 'retry' });
      expect(nextForLead(policy, 3, outcome, endedAt)).toEqual({ kind: 'exhausted', reason: status });
    }
  });

  it('takes a voicemail box as done, unless the campaign retries voicemail', () => {
    expect(nextForLead(policy, 1, voicemail, endedAt)).toEqual({ kind: 'completed', reason: 'voicemail' });
    const retrying = { ...policy, retryOnVoicemail: true };
    expect(nextForLead(retrying, 1, voicemail, endedAt)).toMatchObject({ kind: 'retry', reason: 'voicemail' });
    expect(nextForLead(retrying, 3, voicemail, endedAt)).toEqual({ kind: 'exhausted', reason: 'voicemail' });
  });

  it('with a goal variable and retry_on_goal_incomplete, completes only when the evaluation met the goal', () => {
    const goal = { ...policy, goalCompletionVariable: 'booked', retryOnGoalIncomplete: true };
    expect(nextForLead(goal, 1, person({ booked: true }), endedAt)).toMatchObject({ kind: 'completed' });
    expect(nextForLead(goal, 1, person({ booked: 'True' }), endedAt)).toMatchObject({ kind: 'completed' });
    for (const evaluation of [{ booked: false }, { booked: 'no' }, {}, null]) {
      expect(nextForLead(goal, 1, person(evaluation), endedAt)).toMatchObject({ kind: 'retry', reason: 'goal incomplete' });
    }
    expect(nextForLead(goal, 3, person({ booked: false }), endedAt)).toEqual({ kind: 'exhausted', reason: 'goal incomplete' });
    // Without retry_on_goal_incomplete the goal is reported, not chased.
    expect(nextForLead({ ...goal, retryOnGoalIncomplete: false }, 1, person({ booked: false }), endedAt)).toMatchObject({ kind: 'completed' });
  });

  it('never retries with max_retries 0 and counts the interval from the call\'s end', () => {
    const once = { ...policy, maxRetries: 0 };
    expect(nextForLead(once, 1, { status: 'busy', answeredBy: null, evaluation: null }, endedAt)).toMatchObject({ kind: 'exhausted' });
    const seconds = { ...policy, retryIntervalMs: 10_000 };
    expect(nextForLead(seconds, 1, { status: 'busy', answeredBy: null, evaluation: null }, endedAt)).toMatchObject({ at: new Date('2026-11-24T10:00:10Z') });
  });
});
