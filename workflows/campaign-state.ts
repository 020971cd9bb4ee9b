import type { CampaignCarry, CampaignRound, CampaignRunProgress, DueLead } from '../src/temporal/shared.ts';

/** What the campaign's workflow does next. */
export type CampaignStep =
  | { kind: 'dial'; leads: DueLead[] }
  /** Stopping: ask these calls in progress to end (each is asked once). */
  | { kind: 'end-calls'; callIds: number[] }
  /** Until something changes (a call ends, a signal), or until `untilMs` (null: no timer). */
  | { kind: 'wait'; untilMs: number | null }
  | { kind: 'continue-as-new' }
  | { kind: 'finish'; reason: 'stopped' | 'completed' | 'deleted' };

/**
 * A campaign run's memory and its decisions. Plain data, no Temporal: the workflow feeds it the signals, the
 * calls it placed and saw end, and each round's reading of the database, and asks it what follows. The
 * leads themselves (statuses, attempts, when each is due) live in the database, so this holds only the calls
 * the run follows and what it was told; a continued run starts empty.
 */
export class CampaignState {
  /** Calls holding places: placed, and not ended yet. */
  readonly inFlight = new Set<number>();
  /** Calls that ended (their places free) and are still evaluated: their leads wait for them to finish. */
  readonly ended = new Set<number>();
  /** Something happened since the last round began: a signal, or a call ended. */
  changed = false;
  stopRequested = false;
  dialed = 0;
  phase: CampaignRunProgress['phase'] = 'starting';
  private windowOpensAt: string | undefined;
  private readonly endAsked = new Set<number>();
  private finished: number[] = [];
  /** Until when a due lead is not tried again after the account had no free slot for it. */
  private noSlotUntilMs: number | undefined;

  private readonly dialsPerRun: number;
  private readonly noSlotWaitMs: number;

  /** `carried`: what the run this one continues handed over (CampaignInput). */
  constructor(dialsPerRun: number, noSlotWaitMs: number, carried?: CampaignCarry) {
    this.dialsPerRun = dialsPerRun;
    this.noSlotWaitMs = noSlotWaitMs;
    for (const callId of carried?.following ?? []) this.inFlight.add(callId);
    for (const callId of carried?.ended ?? []) this.ended.add(callId);
    this.finished = [...carried?.toSettle ?? []];
  }

  resume(): void {
    this.stopRequested = false;
    this.changed = true;
  }

  stop(): void {
    this.stopRequested = true;
    this.changed = true;
  }

  /** Leads added or settings changed: read the database again now. */
  wake(): void {
    this.changed = true;
  }

  placed(callId: number): void {
    this.inFlight.add(callId);
    this.dialed += 1;
  }

  /** A call of the run ended, and is evaluated now: its place is free, its lead waits for it to finish. */
  callEnded(callId: number): void {
    if (!this.inFlight.delete(callId)) return;
    this.ended.add(callId);
    this.placeFreed(callId);
  }

  /** A call of the run finished (ended, and evaluated): its lead is settled next round, its place free if it was not. */
  callFinished(callId: number): void {
    const holding = this.inFlight.delete(callId);
    if (!holding && !this.ended.delete(callId)) return;
    this.finished.push(callId);
    if (holding) this.placeFreed(callId);
    this.changed = true;
  }

  private placeFreed(callId: number): void {
    this.endAsked.delete(callId);
    this.noSlotUntilMs = undefined;
    this.changed = true;
  }

  endRequested(callId: number): void {
    this.endAsked.add(callId);
  }

  /** The account had no free slot for a due lead: wait for one of the run's calls to end, or a while. */
  noSlot(nowMs: number): void {
    this.noSlotUntilMs = nowMs + this.noSlotWaitMs;
  }

  /** What the next run takes over when this one continues as new: its calls in progress, and the finished ones not settled yet. */
  carry(): CampaignCarry {
    return { following: [...this.inFlight], ended: [...this.ended], toSettle: [...this.finished] };
  }

  /** The calls that ended since last asked, whose leads are to be settled. */
  takeFinished(): number[] {
    const ended = this.finished;
    this.finished = [];
    return ended;
  }

  beginRound(): void {
    this.changed = false;
  }

  get progress(): CampaignRunProgress {
    return {
      phase: this.phase,
      callsInFlight: [...this.inFlight],
      dialed: this.dialed,
      ...(this.phase === 'waiting-for-window' && this.windowOpensAt ? { windowOpensAt: this.windowOpensAt } : {}),
    };
  }

  /**
   * The next step after a round read `round` at `nowMs`:
   * - stopped (a signal, the campaign's status, or the campaign deleted): ask each call in progress to end,
   *   wait for them all to finish, and finish; nothing new is dialed;
   * - outside the calling window: dial nothing, and wait for it to open (calls in progress go on);
   * - after `dialsPerRun` calls: continue as new, handing the calls in progress over (`carry`);
   * - due leads and free places (and no recent refusal for want of an account slot): dial them;
   * - nothing left to call and no call in progress: complete when `mark_complete_when_no_leads`;
   * - otherwise wait for a call to end, a signal, the next lead to fall due, or the slot wait to pass.
   */
  next(round: CampaignRound, nowMs: number): CampaignStep {
    const { campaign } = round;
    if (campaign === null || this.stopRequested || campaign.status !== 'in-progress') {
      this.phase = 'stopping';
      const toEnd = [...this.inFlight].filter((callId) => !this.endAsked.has(callId));
      if (toEnd.length > 0) return { kind: 'end-calls', callIds: toEnd };
      // The calls still evaluated too: their leads are settled before the run ends.
      if (this.inFlight.size > 0 || this.ended.size > 0) return { kind: 'wait', untilMs: null };
      return this.finish(campaign === null ? 'deleted' : 'stopped');
    }
    if (round.windowOpensAt !== null || round.windowNeverOpens) {
      this.phase = 'waiting-for-window';
      this.windowOpensAt = round.windowOpensAt ?? undefined;
      return { kind: 'wait', untilMs: round.windowOpensAt === null ? null : Date.parse(round.windowOpensAt) };
    }
    if (this.dialed >= this.dialsPerRun) return { kind: 'continue-as-new' };
    const free = campaign.maxCallsInParallel - this.inFlight.size;
    const slotWait = this.noSlotUntilMs !== undefined && nowMs < this.noSlotUntilMs ? this.noSlotUntilMs : undefined;
    if (free > 0 && round.due.length > 0 && slotWait === undefined) {
      this.phase = 'dialing';
      return { kind: 'dial', leads: round.due.slice(0, free) };
    }
    if (round.open === 0 && this.inFlight.size === 0 && this.ended.size === 0) {
      if (campaign.markCompleteWhenNoLeads) return this.finish('completed');
      this.phase = 'waiting';
      return { kind: 'wait', untilMs: null };
    }
    this.phase = 'waiting';
    // Due leads without a free place wait for a call of the run to end (or, refused by the account, a while).
    if (round.due.length > 0) return { kind: 'wait', untilMs: free > 0 ? slotWait ?? null : null };
    return { kind: 'wait', untilMs: round.nextDueAt === null ? null : Date.parse(round.nextDueAt) };
  }

  private finish(reason: 'stopped' | 'completed' | 'deleted'): CampaignStep {
    this.phase = 'done';
    return { kind: 'finish', reason };
  }
}
