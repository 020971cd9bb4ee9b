/** What a campaign's workflow shares with its starters, its calls and its activities. A leaf module. */
import type { CallLifecycleTiming } from './calls.ts';

/** The signals a campaign's workflow takes, by name; but for its calls' none carries a payload (the campaign's row says the rest). */
export const campaignSignals = {
  /** The campaign was started (again): dial, even if a stop was asked before. */
  resume: 'resume',
  /** The campaign was stopped: end the calls in progress politely, dial nothing new. */
  stop: 'stop',
  /** Leads were added: look for due leads now. */
  leadsAdded: 'leadsAdded',
  /** The campaign's settings changed: read them again now. */
  settingsChanged: 'settingsChanged',
  /** A call of the campaign ended and was billed, and is being evaluated: its place is free (`CampaignCallSignal`). */
  callEnded: 'callEnded',
  /** A call of the campaign finished (ended, billed, evaluated): its lead can be settled (`CampaignCallSignal`). */
  callFinished: 'callFinished',
} as const;

export interface CampaignCallSignal {
  callId: number;
}

/**
 * A campaign's workflow takes the campaign's id; its leads and settings stay in the database. `dialsPerRun`
 * bounds each run's history (tests lower it); `noSlotWaitMs` is how long a due lead waits for a free slot of
 * the account before it is tried again when no call of the campaign ends first.
 */
export interface CampaignInput {
  campaignId: number;
  dialsPerRun?: number;
  noSlotWaitMs?: number;
  /** Handed to each call's lifecycle, to shorten its waits in tests (a ring that is never answered); production starts never set it. */
  callTiming?: Partial<CallLifecycleTiming>;
  /**
   * What a run hands the run it continues as: the calls still in progress, which keep their places and tell
   * the new run when they end and finish, the ended calls still evaluated, and the finished calls whose leads
   * it had not settled yet.
   */
  carried?: CampaignCarry;
}

/** The calls a run follows: holding places, ended (places free) but still evaluated, and finished but not settled. */
export interface CampaignCarry {
  following: number[];
  ended: number[];
  toSettle: number[];
}

/** What the campaign's `progress` query answers: this run's view. */
export interface CampaignRunProgress {
  phase: 'starting' | 'dialing' | 'waiting-for-window' | 'waiting' | 'stopping' | 'done';
  /** The calls of the campaign this run is following now. */
  callsInFlight: number[];
  /** Calls placed by this run (a continued run starts again from 0). */
  dialed: number;
  /** ISO 8601: when the window opens, while the run sleeps until then. */
  windowOpensAt?: string;
}

/** A lead due for its next call, as a round found it: `attempts` is its count of calls before this one. */
export interface DueLead {
  leadId: number;
  attempts: number;
}

/**
 * What a campaign's round reads from the database: the campaign (null once deleted), whether its calling
 * window is open now (the activity's clock decides, so the workflow stays free of time zones), the leads
 * due now (at most the free places), when the next waiting lead falls due, and how many leads are not done.
 */
export interface CampaignRound {
  campaign: { status: string; maxCallsInParallel: number; markCompleteWhenNoLeads: boolean } | null;
  /** ISO 8601 while the window is closed: when it opens next; null inside the window. */
  windowOpensAt: string | null;
  /** True when the window is closed and no allowed day ever opens it. */
  windowNeverOpens: boolean;
  due: DueLead[];
  /** ISO 8601: the earliest scheduled retry or contact not due yet; null when there is none. */
  nextDueAt: string | null;
  /** Leads still to call or being called (neither completed, nor out of retries, nor blacklisted). */
  open: number;
  /** How the round settled the leads of the calls it was given, for the workflow's history. */
  settled: LeadSettlement[];
  /** Followed calls that ended long ago without their workflow saying so: finished all the same. */
  overdue: number[];
}

/** How a call settled its lead. */
export interface LeadSettlement {
  leadId: number;
  status: string;
  reason: string;
}

/** How placing a lead's call went: placed (its call row created, a slot taken), no free slot, nothing to place, or the campaign cannot dial. */
export type PlacedLeadCall =
  | { outcome: 'placed'; callId: number; userId: number; assistantId: number }
  | { outcome: 'no-slot' }
  | { outcome: 'skipped'; reason: string }
  | { outcome: 'halt'; reason: string };

export interface CampaignResult {
  /** Why the run ended: stopped, every lead done (`completed`), or the campaign deleted. */
  reason: 'stopped' | 'completed' | 'deleted';
}
