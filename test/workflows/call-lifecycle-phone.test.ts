import { ApplicationFailure } from '@temporalio/activity';
import { describe, expect, it } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { callSignals, type CarrierStatusSignal } from '../../src/temporal/shared.ts';
import { callPhaseQuery } from '../../workflows/call-lifecycle.ts';
import { call, inputOf, names, shortTiming, steps } from '../support/call-lifecycle.ts';

/** An outbound phone call the carrier dials; finalizing answers the status the reason maps to (activities/calls.ts). */
const outbound = {
  ...steps,
  prepareCall: () => Promise.resolve({ outcome: 'ready' as const, maxSeconds: 600, phone: true, dial: true, endCallOnVoicemail: true }),
  dialCall: () => Promise.resolve({ dialed: true as const }),
  endCarrierCall: () => Promise.resolve(),
  recordAnsweredBy: () => Promise.resolve(),
  recordCarrierCost: () => Promise.resolve({ carrierCostMicros: 14_000 }),
  finalizeCall: ({ reason }: { reason: string }) => Promise.resolve({ status: (['busy', 'no-answer'].includes(reason) ? reason : 'failed') as 'failed', evaluate: false }),
} satisfies Partial<Activities>;

const carrier = (status: CarrierStatusSignal['status'], at = new Date().toISOString()): CarrierStatusSignal => ({ status, at });

describe('callLifecycleWorkflow on the phone network', () => {
  it('dials, rings, and follows the answered call until the callee hangs up at the carrier', async () => {
    const { worker, callId, handle } = await call({ ...outbound, finalizeCall: () => Promise.resolve({ status: 'ended_by_customer' as const, evaluate: false }) });
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('connecting');
    expect(inputOf(worker, 'dialCall')).toEqual({ callId, ringTimeoutSeconds: 30 });
    await handle.signal(callSignals.carrierStatus, carrier('ringing'));
    const answeredAt = new Date().toISOString();
    await handle.signal(callSignals.carrierStatus, carrier('in-progress', answeredAt));
    // The media stream's own start comes a moment later: the first word of an answer counts.
    await handle.signal(callSignals.callAnswered, { at: new Date(Date.now() + 50).toISOString() });
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    const endedAt = new Date().toISOString();
    // The media session's word comes first: the carrier has not reported the end (its "completed" would follow
    // the hang-up the workflow asks for, and, sent at once, could reach the workflow in the same task).
    await handle.signal(callSignals.callEnded, { reason: 'customer_hangup', at: endedAt });

    expect(await handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
    expect(inputOf(worker, 'markAnswered')).toEqual({ callId, at: answeredAt });
    expect(inputOf(worker, 'finalizeCall')).toEqual({ callId, reason: 'customer_hangup', endedAt });
    // The media session ended first, so the line was dropped at the carrier too; then the carrier's price.
    expect(names(worker)).toEqual(['prepareCall', 'dialCall', 'markAnswered', 'endCarrierCall', 'finalizeCall', 'recordCarrierCost']);
    expect(inputOf(worker, 'recordCarrierCost')).toEqual({ callId });
  });

  it('ends unanswered calls with the carrier\'s word: busy, no-answer, or failed', async () => {
    for (const status of ['busy', 'no-answer', 'failed', 'canceled'] as const) {
      const { worker, callId, handle } = await call(outbound);
      await handle.signal(callSignals.carrierStatus, carrier('ringing'));
      const at = new Date().toISOString();
      await handle.signal(callSignals.carrierStatus, carrier(status, at));
      const reason = status === 'canceled' ? 'failed' : status;
      expect(await handle.result()).toEqual({ status: reason, reason });
      expect(inputOf(worker, 'finalizeCall')).toEqual({ callId, reason, endedAt: at });
      // The carrier ended the line itself: nothing to hang up, nothing to evaluate.
      expect(names(worker)).toEqual(['prepareCall', 'dialCall', 'finalizeCall']);
    }
  });

  it('gives a call that rings out up as no-answer, and stops the ringing at the carrier', async () => {
    const { worker, callId, handle } = await call(outbound, shortTiming);
    await handle.signal(callSignals.carrierStatus, carrier('ringing'));
    expect(await handle.result()).toEqual({ status: 'no-answer', reason: 'no-answer' });
    expect(names(worker)).toEqual(['prepareCall', 'dialCall', 'endCarrierCall', 'finalizeCall']);
    expect(inputOf(worker, 'endCarrierCall')).toEqual({ callId });
  });

  it('waits briefly for the media session\'s word when the line drops, and ends as the callee\'s hang-up without it', async () => {
    const { worker, handle } = await call({ ...outbound, finalizeCall: ({ reason }) => Promise.resolve({ status: reason === 'customer_hangup' ? 'ended_by_customer' as const : 'ended' as const, evaluate: false }) }, shortTiming);
    await handle.signal(callSignals.carrierStatus, carrier('in-progress'));
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    const droppedAt = new Date().toISOString();
    await handle.signal(callSignals.carrierStatus, carrier('completed', droppedAt));
    expect(await handle.result()).toEqual({ status: 'ended_by_customer', reason: 'customer_hangup' });
    expect(worker.calls.find((entry) => entry.name === 'finalizeCall')?.input).toMatchObject({ endedAt: droppedAt });
    expect(names(worker)).not.toContain('endCarrierCall');
  });

  it('fails a call the carrier will not dial, without ringing anything', async () => {
    const { worker, handle } = await call({ ...outbound, dialCall: () => Promise.resolve({ dialed: false as const, reason: 'not a number the carrier dials' }) });
    expect(await handle.result()).toEqual({ status: 'failed', reason: 'dial_failed' });
    expect(names(worker)).toEqual(['prepareCall', 'dialCall', 'finalizeCall']);
  });

  it('hangs up at the carrier and in the media session when asked to end a live call', async () => {
    const { worker, handle } = await call({ ...outbound, requestHangup: () => Promise.resolve('gone' as const) });
    await handle.signal(callSignals.carrierStatus, carrier('in-progress'));
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    await handle.signal(callSignals.endCall, { reason: 'call_deleted' });
    expect(await handle.result()).toMatchObject({ reason: 'media_lost' });
    expect(names(worker)).toEqual(['prepareCall', 'dialCall', 'markAnswered', 'requestHangup', 'endCarrierCall', 'finalizeCall', 'recordCarrierCost']);
  });

  it('stores each verdict on who answered as it comes, the carrier\'s over the engine\'s, before the call is finalized', async () => {
    const { worker, callId, handle } = await call({ ...outbound, finalizeCall: () => Promise.resolve({ status: 'ended_by_assistant' as const, evaluate: false }) });
    await handle.signal(callSignals.carrierStatus, carrier('in-progress'));
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    await handle.signal(callSignals.answeredBy, { answeredBy: 'machine', source: 'engine', at: new Date().toISOString() });
    await expect.poll(() => names(worker).filter((name) => name === 'recordAnsweredBy').length, { timeout: 10_000 }).toBe(1);
    // The engine's verdict does not end the call here: the engine leaves its message or hangs up itself.
    expect(await handle.query(callPhaseQuery)).toBe('in-progress');
    await handle.signal(callSignals.answeredBy, { answeredBy: 'human', source: 'carrier', at: new Date().toISOString() });
    await handle.signal(callSignals.callEnded, { reason: 'voicemail', at: new Date().toISOString() });
    expect(await handle.result()).toEqual({ status: 'ended_by_assistant', reason: 'voicemail' });
    const stored = worker.calls.filter((entry) => entry.name === 'recordAnsweredBy').map((entry) => entry.input);
    expect(stored).toEqual([{ callId, answeredBy: 'machine' }, { callId, answeredBy: 'human' }]);
    expect(names(worker).indexOf('finalizeCall')).toBeGreaterThan(names(worker).lastIndexOf('recordAnsweredBy'));
  });

  it('hangs up at once when the carrier finds a machine and the assistant hangs up on voicemail', async () => {
    const { worker, callId, handle } = await call({ ...outbound, finalizeCall: () => Promise.resolve({ status: 'ended_by_assistant' as const, evaluate: false }) });
    await handle.signal(callSignals.carrierStatus, carrier('in-progress'));
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    await handle.signal(callSignals.answeredBy, { answeredBy: 'machine', source: 'carrier', at: new Date().toISOString() });
    await expect.poll(() => inputOf(worker, 'requestHangup'), { timeout: 10_000 }).toEqual({ callId, reason: 'voicemail' });
    await handle.signal(callSignals.callEnded, { reason: 'voicemail', at: new Date().toISOString() });
    expect(await handle.result()).toEqual({ status: 'ended_by_assistant', reason: 'voicemail' });
    expect(names(worker)).toEqual(['prepareCall', 'dialCall', 'markAnswered', 'recordAnsweredBy', 'requestHangup', 'endCarrierCall', 'finalizeCall', 'recordCarrierCost']);
  });

  it('leaves a machine on the line when the assistant leaves a message, and finishes the call when the price never comes', async () => {
    const { worker, handle } = await call({
      ...outbound,
      prepareCall: () => Promise.resolve({ outcome: 'ready' as const, maxSeconds: 600, phone: true, dial: true, endCallOnVoicemail: false }),
      recordCarrierCost: () => Promise.reject(ApplicationFailure.nonRetryable('the carrier forgot the call', 'rejected')),
      finalizeCall: () => Promise.resolve({ status: 'ended_by_assistant' as const, evaluate: false }),
    });
    await handle.signal(callSignals.carrierStatus, carrier('in-progress'));
    await expect.poll(() => handle.query(callPhaseQuery), { timeout: 10_000 }).toBe('in-progress');
    await handle.signal(callSignals.answeredBy, { answeredBy: 'machine', source: 'carrier', at: new Date().toISOString() });
    await expect.poll(() => names(worker).includes('recordAnsweredBy'), { timeout: 10_000 }).toBe(true);
    expect(await handle.query(callPhaseQuery)).toBe('in-progress');
    await handle.signal(callSignals.callEnded, { reason: 'voicemail', at: new Date().toISOString() });
    expect(await handle.result()).toEqual({ status: 'ended_by_assistant', reason: 'voicemail' });
    expect(names(worker)).not.toContain('requestHangup');
  });
});
