import { describe, expect, it } from 'vitest';
import type { CampaignRound } from '../../src/temporal/shared.ts';
import { CampaignState } from '../../workflows/campaign-state.ts';

const NOW = Date.parse('2026-11-24T12:00:00.000Z');

function round(fields: Partial<CampaignRound> & { status?: string; maxCallsInParallel?: number; markCompleteWhenNoLeads?: boolean } = {}): CampaignRound {
  const { status = 'in-progress', maxCallsInParallel = 2, markCompleteWhenNoLeads = true, ...rest } = fields;
  return {
    campaign: { status, maxCallsInParallel, markCompleteWhenNoLeads },
    windowOpensAt: null,
    windowNeverOpens: false,
    due: [],
    nextDueAt: null,
    open: 0,
    settled: [],
    overdue: [],
    ...rest,
  };
}

const leads = (...ids: number[]) => ids.map((leadId) => ({ leadId, attempts: 0 }));

describe('CampaignState.next', () => {
  it('dials due leads up to the free places', () => {
    const state = new CampaignState(500, 5000);
    expect(state.next(round({ due: leads(1, 2, 3), open: 3 }), NOW)).toEqual({ kind: 'dial', leads: leads(1, 2) });
    state.placed(100);
    expect(state.next(round({ due: leads(2, 3), open: 3 }), NOW)).toEqual({ kind: 'dial', leads: leads(2) });
    state.placed(101);
    // Full: wait for a call to end (no timer), even with a retry falling due later.
    expect(state.next(round({ due: leads(3), open: 3, nextDueAt: new Date(NOW + 1000).toISOString() }), NOW)).toEqual({ kind: 'wait', untilMs: null });
    expect(state.progress).toEqual({ phase: 'waiting', callsInFlight: [100, 101], dialed: 2 });
  });

  it('sleeps until the window opens, dialing nothing; for ever (until a signal) when it never opens', () => {
    const state = new CampaignState(500, 5000);
    const opens = new Date(NOW + 60_000).toISOString();
    expect(state.next(round({ windowOpensAt: opens, due: leads(1), open: 1 }), NOW)).toEqual({ kind: 'wait', untilMs: NOW + 60_000 });
    expect(state.progress).toEqual({ phase: 'waiting-for-window', callsInFlight: [], dialed: 0, windowOpensAt: opens });
    expect(state.next(round({ windowNeverOpens: true, open: 1 }), NOW)).toEqual({ kind: 'wait', untilMs: null });
  });

  it('waits until the next lead falls due when none is due now', () => {
    const state = new CampaignState(500, 5000);
    const at = new Date(NOW + 30_000).toISOString();
    expect(state.next(round({ open: 1, nextDueAt: at }), NOW)).toEqual({ kind: 'wait', untilMs: NOW + 30_000 });
  });

  it('completes when nothing is left and no call is in progress, only with mark_complete_when_no_leads', () => {
    expect(new CampaignState(500, 5000).next(round({ open: 0 }), NOW)).toEqual({ kind: 'finish', reason: 'completed' });
    expect(new CampaignState(500, 5000).next(round({ open: 0, markCompleteWhenNoLeads: false }), NOW)).toEqual({ kind: 'wait', untilMs: null });
    const busy = new CampaignState(500, 5000);
    busy.placed(7);
    expect(busy.next(round({ open: 1 }), NOW)).toEqual({ kind: 'wait', untilMs: null });
  });

  it('stopping asks each call in progress to end once, waits for them, then finishes; a deleted campaign likewise', () => {
    const state = new CampaignState(500, 5000);
    state.placed(1);
    state.placed(2);
    state.stop();
    expect(state.next(round({ due: leads(3), open: 3 }), NOW)).toEqual({ kind: 'end-calls', callIds: [1, 2] });
    state.endRequested(1);
    state.endRequested(2);
    expect(state.next(round({ due: leads(3), open: 3 }), NOW)).toEqual({ kind: 'wait', untilMs: null });
    state.callFinished(1);
    state.callFinished(2);
    expect(state.takeFinished()).toEqual([1, 2]);
    expect(state.next(round({ due: leads(3), open: 1 }), NOW)).toEqual({ kind: 'finish', reason: 'stopped' });

    // The campaign's row says stopped (a lost signal), or it is gone.
    expect(new CampaignState(500, 5000).next(round({ status: 'stopped', due: leads(1), open: 1 }), NOW)).toEqual({ kind: 'finish', reason: 'stopped' });
    expect(new CampaignState(500, 5000).next({ ...round(), campaign: null }, NOW)).toEqual({ kind: 'finish', reason: 'deleted' });
  });

  it('a start after a stop goes on dialing', () => {
    const state = new CampaignState(500, 5000);
    state.stop();
    state.resume();
    expect(state.next(round({ due: leads(1), open: 1 }), NOW)).toEqual({ kind: 'dial', leads: leads(1) });
  });

  it('after a refusal for want of an account slot, waits the slot wait or for a call to end', () => {
    const state = new CampaignState(500, 5000);
    state.noSlot(NOW);
    expect(state.next(round({ due: leads(1), open: 1 }), NOW + 1000)).toEqual({ kind: 'wait', untilMs: NOW + 5000 });
    expect(state.next(round({ due: leads(1), open: 1 }), NOW + 5000)).toEqual({ kind: 'dial', leads: leads(1) });
    state.noSlot(NOW);
    state.placed(9);
    state.callFinished(9);
    expect(state.next(round({ due: leads(1), open: 1 }), NOW + 1000)).toEqual({ kind: 'dial', leads: leads(1) });
  });

  it('continues as new after its dials, handing over its calls in progress and the finished ones not settled yet', () => {
    const state = new CampaignState(2, 5000);
    state.placed(1);
    state.placed(2);
    state.placed(3);
    state.callFinished(1);
    state.callEnded(3);
    expect(state.next(round({ due: leads(4), open: 3 }), NOW)).toEqual({ kind: 'continue-as-new' });
    expect(state.carry()).toEqual({ following: [2], ended: [3], toSettle: [1] });

    const next = new CampaignState(2, 5000, state.carry());
    expect(next.progress).toEqual({ phase: 'starting', callsInFlight: [2], dialed: 0 });
    expect(next.takeFinished()).toEqual([1]);
    // The carried call in progress holds its place of the two, and its end is taken as any other call's.
    expect(next.next(round({ due: leads(4, 5), open: 3 }), NOW)).toEqual({ kind: 'dial', leads: leads(4) });
    next.callFinished(2);
    next.callFinished(3);
    expect(next.takeFinished()).toEqual([2, 3]);
  });

  it('an ended call frees its place at once; its lead is settled once it finished, and a stop waits for that', () => {
    const state = new CampaignState(500, 5000);
    state.placed(1);
    expect(state.next(round({ maxCallsInParallel: 1, due: leads(2), open: 2 }), NOW)).toEqual({ kind: 'wait', untilMs: null });
    state.callEnded(1);
    expect(state.takeFinished()).toEqual([]);
    expect(state.next(round({ maxCallsInParallel: 1, due: leads(2), open: 2 }), NOW)).toEqual({ kind: 'dial', leads: leads(2) });
    state.stop();
    expect(state.next(round({ open: 1 }), NOW)).toEqual({ kind: 'wait', untilMs: null });
    state.callFinished(1);
    state.callFinished(1);
    expect(state.takeFinished()).toEqual([1]);
    expect(state.next(round({ open: 0 }), NOW)).toEqual({ kind: 'finish', reason: 'stopped' });
  });

  it('signals and ended calls mark the run changed until the next round begins; an unknown call changes nothing', () => {
    const state = new CampaignState(500, 5000);
    state.callEnded(42);
    state.callFinished(42);
    expect(state.changed).toBe(false);
    expect(state.takeFinished()).toEqual([]);
    state.wake();
    expect(state.changed).toBe(true);
    state.beginRound();
    expect(state.changed).toBe(false);
  });
});
