import { describe, expect, it } from 'vitest';
import { finalCallStatus } from '../../activities/calls.ts';
import { DEFAULT_EVALUATION_SCHEMA, evaluationFunction, readEvaluation } from '../../src/agent/evaluation.ts';
import { callTranscript } from '../../src/agent/transcript.ts';
import { mediaControlToken } from '../../src/lib/media-control.ts';
import { CallState } from '../../workflows/call-state.ts';

describe('finalCallStatus', () => {
  it('says who ended a connected call, or that it completed or was ended', () => {
    expect(finalCallStatus('customer_hangup', true)).toBe('ended_by_customer');
    expect(finalCallStatus('assistant_end_call', true)).toBe('ended_by_assistant');
    // The assistant hung up on a voicemail box (after its message, if it left one).
    expect(finalCallStatus('voicemail', true)).toBe('ended_by_assistant');
    for (const reason of ['max_duration', 'silence_timeout', 'balance_exhausted', 'transferred']) expect(finalCallStatus(reason, true), reason).toBe('completed');
    for (const reason of ['error', 'media_lost', 'call_deleted', 'something_new']) expect(finalCallStatus(reason, true), reason).toBe('ended');
  });

  it('fails a call that never connected, unless the carrier said busy or no-answer', () => {
    for (const reason of ['customer_hangup', 'connect_timeout', 'insufficient_balance', 'error', 'dial_failed']) expect(finalCallStatus(reason, false), reason).toBe('failed');
    expect(finalCallStatus('busy', false)).toBe('busy');
    expect(finalCallStatus('no-answer', false)).toBe('no-answer');
  });
});

describe('CallState on the phone network', () => {
  it('takes the carrier\'s in-progress as the answer, and its first final status as the end of the line', () => {
    const state = new CallState();
    state.carrierStatus({ status: 'ringing', at: '2026-11-24T10:00:00.000Z' });
    expect(state.connectingSettled).toBe(false);
    state.carrierStatus({ status: 'in-progress', at: '2026-11-24T10:00:05.000Z' });
    state.answer('2026-11-24T10:00:06.000Z');
    expect(state.answeredAt).toBe('2026-11-24T10:00:05.000Z');
    expect(state.endingDue).toBe(false);
    state.carrierStatus({ status: 'completed', at: '2026-11-24T10:01:00.000Z' });
    state.carrierStatus({ status: 'failed', at: '2026-11-24T10:01:01.000Z' });
    expect(state.carrierEnd?.status).toBe('completed');
    expect(state.endingDue).toBe(true);
    // Answered: the end is the media session's or the callee's hang-up, not an unanswered outcome.
    expect(state.unansweredEnd).toBeUndefined();
  });

  it('ends an unanswered call as busy, no-answer or failed', () => {
    for (const [status, reason] of [['busy', 'busy'], ['no-answer', 'no-answer'], ['failed', 'failed'], ['canceled', 'failed']] as const) {
      const state = new CallState();
      state.carrierStatus({ status, at: '2026-11-24T10:00:30.000Z' });
      expect(state.connectingSettled).toBe(true);
      expect(state.unansweredEnd).toEqual({ reason, at: '2026-11-24T10:00:30.000Z' });
    }
  });
});

describe('CallState: who answered', () => {
  const verdict = (answeredBy: 'human' | 'machine' | 'unknown', source: 'engine' | 'carrier') => ({ answeredBy, source, at: '2026-11-24T10:00:03.000Z' });

  it('keeps the first sure verdict of the engine, and lets a sure one replace an unsure one', () => {
    const state = new CallState();
    expect(state.verdictToStore).toBeUndefined();
    state.judge(verdict('unknown', 'engine'));
    state.judge(verdict('human', 'engine'));
    expect(state.verdict).toMatchObject({ answeredBy: 'human', source: 'engine' });
    state.judge(verdict('machine', 'engine'));
    state.judge(verdict('unknown', 'carrier'));
    expect(state.verdict).toMatchObject({ answeredBy: 'human' });
    const stored = state.verdictToStore!;
    state.verdictStored(stored);
    expect(state.verdictToStore).toBeUndefined();
  });

  it('prefers the carrier\'s sure verdict to the engine\'s, and keeps it against everything after', () => {
    const state = new CallState();
    state.judge(verdict('human', 'engine'));
    state.verdictStored(state.verdict!);
    state.judge(verdict('machine', 'carrier'));
    expect(state.verdictToStore).toMatchObject({ answeredBy: 'machine', source: 'carrier' });
    state.judge(verdict('human', 'carrier'));
    state.judge(verdict('human', 'engine'));
    expect(state.verdict).toMatchObject({ answeredBy: 'machine', source: 'carrier' });
    // After the carrier's unsure word, the engine's sure one still counts.
    const unsure = new CallState();
    unsure.judge(verdict('unknown', 'carrier'));
    unsure.judge(verdict('machine', 'engine'));
    expect(unsure.verdict).toMatchObject({ answeredBy: 'machine', source: 'engine' });
  });

  it('hangs up on the carrier\'s machine when the assistant hangs up on voicemail, and leaves the engine\'s machine to the engine', () => {
    const hangsUp = new CallState();
    hangsUp.endOnVoicemail = true;
    hangsUp.answer('2026-11-24T10:00:00.000Z');
    hangsUp.judge(verdict('machine', 'engine'));
    expect(hangsUp.endingDue).toBe(false);
    hangsUp.judge(verdict('machine', 'carrier'));
    expect(hangsUp.endingDue).toBe(true);
    expect(hangsUp.hangUpCause).toBe('voicemail');
    expect(hangsUp.hangUpReason('voicemail')).toBe('voicemail');
    // The session was gone: the call still ended because a machine answered.
    expect(hangsUp.unreportedEnd('voicemail', 'gone', Date.parse('2026-11-24T10:00:05.000Z'), 600)).toEqual({ reason: 'voicemail', at: '2026-11-24T10:00:05.000Z' });
    // A request to end the call is still that.
    hangsUp.requestEnd('call_deleted');
    expect(hangsUp.hangUpCause).toBe('requested');

    const leavesMessage = new CallState();
    leavesMessage.answer('2026-11-24T10:00:00.000Z');
    leavesMessage.judge(verdict('machine', 'carrier'));
    expect(leavesMessage.endingDue).toBe(false);
  });
});

describe('callTranscript', () => {
  it('writes one AI or Customer line per turn, spoken order, whitespace folded', () => {
    expect(callTranscript([
      { role: 'assistant', text: 'Hello, this is Ada.' },
      { role: 'user', text: '  Hi,\nI need   help. ' },
      { role: 'assistant', text: '' },
      { role: 'assistant', text: 'Sure.' },
    ])).toBe('AI: Hello, this is Ada.\nCustomer: Hi, I need help.\nAI: Sure.');
    expect(callTranscript([])).toBe('');
  });

  it('shows where another assistant took the call over', () => {
    expect(callTranscript([
      { role: 'assistant', text: 'Let me pass you to Billing.' },
      { role: 'handover', text: 'Billing' },
      { role: 'assistant', text: 'Billing here.' },
    ])).toBe('AI: Let me pass you to Billing.\n[Transferred to the assistant Billing]\nAI: Billing here.');
  });
});

describe('the post-call evaluation function', () => {
  const schema = [
    { name: 'interested', type: 'bool', description: 'Wants a demo' },
    { name: 'seats', type: 'number', description: 'How many seats' },
    { name: 'next_step', type: 'string', description: 'What happens next' },
  ] as const;

  it('has one required parameter of the JSON type per field', () => {
    expect(evaluationFunction(schema).parameters).toEqual({
      type: 'object',
      properties: {
        interested: { type: 'boolean', description: 'Wants a demo' },
        seats: { type: 'number', description: 'How many seats' },
        next_step: { type: 'string', description: 'What happens next' },
      },
      required: ['interested', 'seats', 'next_step'],
      additionalProperties: false,
    });
    expect(DEFAULT_EVALUATION_SCHEMA.map((field) => [field.name, field.type])).toEqual([['status', 'bool'], ['summary', 'string']]);
  });

  it('keeps the values of the right type, keyed by name; others are null and extra keys dropped', () => {
    const call = { id: 'c1', name: 'record_call_evaluation', arguments: '{"interested":"yes","seats":12,"next_step":"Send a quote","extra":1}' };
    expect(readEvaluation(schema, call)).toEqual({ interested: null, seats: 12, next_step: 'Send a quote' });
  });

  it('refuses arguments that are no JSON object', () => {
    expect(() => readEvaluation(schema, { id: 'c1', name: 'record_call_evaluation', arguments: '{"seats": 1' })).toThrow('not JSON');
    expect(() => readEvaluation(schema, { id: 'c1', name: 'record_call_evaluation', arguments: '[1]' })).toThrow('not an object');
  });
});

describe('mediaControlToken', () => {
  it('is the HMAC-SHA256 of the app key over "media-control", the same for every process with that key', () => {
    const key = Buffer.alloc(32, 7);
    expect(mediaControlToken(key)).toBe(mediaControlToken(Buffer.alloc(32, 7)));
    expect(mediaControlToken(key)).not.toBe(mediaControlToken(Buffer.alloc(32, 8)));
    expect(mediaControlToken(key)).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });
});

describe('CallState', () => {
  const answeredAt = '2026-11-23T12:00:00.000Z';
  const now = Date.parse('2026-11-23T12:05:00.000Z');

  it('keeps the first of each signal', () => {
    const state = new CallState();
    state.answer(answeredAt);
    state.answer('2026-11-23T12:01:00.000Z');
    state.reportEnd({ reason: 'customer_hangup', at: '2026-11-23T12:02:00.000Z' });
    state.reportEnd({ reason: 'error', at: '2026-11-23T12:03:00.000Z' });
    expect(state.answeredAt).toBe(answeredAt);
    expect(state.reported).toEqual({ reason: 'customer_hangup', at: '2026-11-23T12:02:00.000Z' });
  });

  it('hangs up for the request, the time limit, or a connection that never came', () => {
    const requested = new CallState();
    requested.answer(answeredAt);
    requested.requestEnd('call_deleted');
    expect(requested.hangUpCause).toBe('requested');
    expect(requested.hangUpReason('requested')).toBe('call_deleted');
    const live = new CallState();
    live.answer(answeredAt);
    expect(live.hangUpCause).toBe('time_limit');
    expect(live.hangUpReason('time_limit')).toBe('max_duration');
    expect(new CallState().hangUpCause).toBe('connect_timeout');
  });

  it('ends an unreported call at its time limit at the latest; a session found gone is media_lost', () => {
    const state = new CallState();
    state.answer(answeredAt);
    expect(state.unreportedEnd('time_limit', 'requested', now, 120)).toEqual({ reason: 'max_duration', at: '2026-11-23T12:02:00.000Z' });
    expect(state.unreportedEnd('time_limit', 'gone', now, 600)).toEqual({ reason: 'media_lost', at: '2026-11-23T12:05:00.000Z' });
    state.requestEnd('operator');
    expect(state.unreportedEnd('requested', 'requested', now, 600)).toEqual({ reason: 'operator', at: '2026-11-23T12:05:00.000Z' });
  });

  it('ends a call that never connected now, with the reason it was hung up for', () => {
    const state = new CallState();
    expect(state.unreportedEnd('connect_timeout', 'gone', now, 600)).toEqual({ reason: 'connect_timeout', at: '2026-11-23T12:05:00.000Z' });
  });
});
