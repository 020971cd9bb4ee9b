import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import { searchAttributes } from '../../src/temporal/names.ts';
import { callSignals } from '../../src/temporal/shared.ts';
import { callPhaseQuery } from '../../workflows/call-lifecycle.ts';
import { call, inputOf, lastCallId, names, shortTiming, steps } from '../support/call-lifecycle.ts';

describe('callLifecycleWorkflow', () => {
  it('follows a call the customer hangs up: answered, ended, finalized with the reported end, evaluated', async () => {
    const { worker, callId, handle } = await call(steps);
    const answeredAt = '2026-11-23T12:00:00.000Z';
    const endedAt = '2026-11-23T12:01:30.500Z';

    await handle.signal(callSignals.callAnswered, { at: answeredAt });
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    await handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: endedAt });

    expect(await handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'finalizeCall', 'evaluateCall']);
    expect(inputOf(worker, 'prepareCall')).toEqual({ callId });
    expect(inputOf(worker, 'markAnswered')).toEqual({ callId, at: answeredAt });
    expect(inputOf(worker, 'finalizeCall')).toEqual({ callId, reason: 'customer_hangup', endedAt });
    expect(await handle.query(callPhaseQuery)).toBe('done');
    const described = await handle.describe();
    expect(described.typedSearchAttributes.get(searchAttributes.userId)).toBe(41);
    expect(described.typedSearchAttributes.get(searchAttributes.assistantId)).toBe(7);
  });

  it('hangs up on an endCall signal and finalizes with the end the media session then reports', async () => {
    const hangingUp = Promise.withResolvers<void>();
    const { worker, callId, handle } = await call({
      ...steps,
      requestHangup: () => {
        hangingUp.resolve();
        return Promise.resolve('requested' as const);
      },
    });
    await handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await handle.signal(callSignals.endCall, { reason: 'call_deleted' });

    await hangingUp.promise;
    const endedAt = new Date().toISOString();
    await handle.signal(callSignals.callEnded, { reason: 'call_deleted', at: endedAt });

    expect(await handle.result()).toEqual({ status: 'ended', reason: 'call_deleted' });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'requestHangup', 'finalizeCall', 'evaluateCall']);
    expect(inputOf(worker, 'requestHangup')).toEqual({ callId, reason: 'call_deleted' });
    expect(inputOf(worker, 'finalizeCall')).toEqual({ callId, reason: 'call_deleted', endedAt });
  });

  it('hangs up when the time limit and its grace pass without an end, and ends the call at its limit', async () => {
    const { worker, callId, handle } = await call({ ...steps, prepareCall: () => Promise.resolve({ outcome: 'ready' as const, maxSeconds: 1, phone: false, dial: false, endCallOnVoicemail: true }) }, shortTiming);
    const answeredAt = new Date();
    await handle.signal(callSignals.callAnswered, { at: answeredAt.toISOString() });

    expect(await handle.result()).toEqual({ status: 'ended', reason: 'max_duration' });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'requestHangup', 'finalizeCall', 'evaluateCall']);
    expect(inputOf(worker, 'requestHangup')).toEqual({ callId, reason: 'max_duration' });
    // No end was reported: the call is taken to have lasted its limit, not the grace and the wait beyond it.
    expect(inputOf(worker, 'finalizeCall')).toEqual({ callId, reason: 'max_duration', endedAt: new Date(answeredAt.getTime() + 1000).toISOString() });
  });

  it('ends a call whose session is found gone as media_lost, without waiting for a report', async () => {
    const { worker, handle } = await call({ ...steps, requestHangup: () => Promise.resolve('gone' as const) });
    await handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await handle.signal(callSignals.endCall, { reason: 'operator' });

    expect(await handle.result()).toEqual({ status: 'ended', reason: 'media_lost' });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'requestHangup', 'finalizeCall', 'evaluateCall']);
  });

  it('fails a call that never connects: hung up after the connect timeout, never answered, not evaluated', async () => {
    const { worker, callId, handle } = await call({
      ...steps,
      requestHangup: () => Promise.resolve('gone' as const),
      finalizeCall: () => Promise.resolve({ status: 'failed' as const, evaluate: false }),
    }, shortTiming);

    expect(await handle.result()).toEqual({ status: 'failed', reason: 'connect_timeout' });
    expect(names(worker)).toEqual(['prepareCall', 'requestHangup', 'finalizeCall']);
    expect(inputOf(worker, 'requestHangup')).toEqual({ callId, reason: 'connect_timeout' });
    expect(inputOf(worker, 'finalizeCall')).toMatchObject({ callId, reason: 'connect_timeout' });
  });

  it('fails a call the balance cannot pay a minute of at once', async () => {
    const { worker, callId, handle } = await call({
      ...steps,
      prepareCall: () => Promise.resolve({ outcome: 'refused' as const, reason: 'insufficient_balance' as const }),
      finalizeCall: () => Promise.resolve({ status: 'failed' as const, evaluate: false }),
    });

    expect(await handle.result()).toEqual({ status: 'failed', reason: 'insufficient_balance' });
    expect(names(worker)).toEqual(['prepareCall', 'finalizeCall']);
    expect(inputOf(worker, 'finalizeCall')).toMatchObject({ callId, reason: 'insufficient_balance' });
  });

  it('finishes the call when its evaluation fails for good', async () => {
    const { worker, handle } = await call({
      ...steps,
      evaluateCall: () => Promise.reject(ApplicationFailure.nonRetryable('the evaluation broke', 'rejected')),
    });
    await handle.signal(callSignals.callAnswered, { at: new Date().toISOString() });
    await handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: new Date().toISOString() });

    expect(await handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
    expect(names(worker)).toEqual(['prepareCall', 'markAnswered', 'finalizeCall', 'evaluateCall']);
    expect((await handle.describe()).status.name).toBe('COMPLETED');
  });

  it('ends as deleted when the call\'s record is gone', async () => {
    const { worker, callId, handle } = await call({
      ...steps,
      prepareCall: () => Promise.reject(ApplicationFailure.nonRetryable(`Call ${lastCallId} no longer exists.`, 'not_found')),
    });

    expect(await handle.result()).toEqual({ status: 'deleted', reason: 'deleted' });
    expect(names(worker)).toEqual(['prepareCall']);
    expect(inputOf(worker, 'prepareCall')).toEqual({ callId });
  });
});
