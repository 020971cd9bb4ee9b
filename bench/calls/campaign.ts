/**
 * A campaign of the campaign bench and drill, through the API as a client runs one (create, add leads, start
 * with update-status), and what its records show once it ended: the leads' final statuses, the calls per lead
 * against the lead's attempts, the carrier's dials per number, how many calls were live at once (a call holds
 * its slot from its record's creation until its end), the slot utilisation and how soon a freed slot was dialed.
 */
import type { Knex } from 'knex';
import { percentile } from '../percentile.ts';
import type { CallingAccount } from './account.ts';
import type { sandboxCarrierApi } from './callees.ts';

export interface CampaignLead {
  phone: string;
  /** Secondary contacts, called in this order once the lead's retries are used up. */
  contacts?: string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates a campaign that may call at any hour (in UTC) and answers its id. */
export async function createCampaign(account: CallingAccount, settings: { name: string; maxCallsInParallel: number; maxRetries: number; retryInterval: number }): Promise<number> {
  const created = await account.request<{ data: { id: number } }>('POST', '/user/campaigns', {
    token: account.token,
    body: {
      name: settings.name, assistant_id: account.assistantId, timezone: 'UTC', allowed_hours_start_time: '00:00', allowed_hours_end_time: '23:59',
      max_calls_in_parallel: settings.maxCallsInParallel, max_retries: settings.maxRetries, retry_interval: settings.retryInterval,
    },
  });
  if (created.status !== 201) throw new Error(`creating a campaign: HTTP ${created.status} ${created.text}`);
  return created.body.data.id;
}

/** Adds the leads with `POST /user/lead`, `parallel` requests at a time. */
export async function addLeads(account: CallingAccount, campaignId: number, leads: CampaignLead[], parallel = 8): Promise<void> {
  for (let from = 0; from < leads.length; from += parallel) {
    await Promise.all(leads.slice(from, from + parallel).map(async (lead) => {
      const answer = await account.request('POST', '/user/lead', {
        token: account.token,
        body: { campaign_id: campaignId, phone_number: lead.phone, ...(lead.contacts ? { secondary_contacts: lead.contacts.map((phone) => ({ phone_number: phone })) } : {}) },
      });
      if (answer.status !== 200) throw new Error(`adding the lead ${lead.phone}: HTTP ${answer.status} ${answer.text}`);
    }));
  }
}

/** Starts the campaign as a client does (`update-status`), and answers when it was started. */
export async function startCampaign(account: CallingAccount, campaignId: number): Promise<number> {
  const startedAt = Date.now();
  const answer = await account.request('POST', '/user/campaigns/update-status', { token: account.token, body: { campaign_id: campaignId, action: 'start' } });
  if (answer.status !== 200) throw new Error(`starting the campaign: HTTP ${answer.status} ${answer.text}`);
  return startedAt;
}

/** Waits until the campaign is `completed` (true) or `timeoutMs` passed (false). */
export async function campaignCompleted(knex: Knex, campaignId: number, timeoutMs: number): Promise<boolean> {
  for (const started = Date.now(); Date.now() - started < timeoutMs; await sleep(500)) {
    const campaign = await knex('campaigns').where({ id: campaignId }).first<{ status: string } | undefined>('status');
    if (campaign?.status === 'completed') return true;
  }
  return false;
}

export interface CampaignAudit {
  leads: number;
  /** Leads by status. */
  statuses: Map<string, number>;
  /** Leads a campaign would still call (scheduled, rescheduled, processing, or a lead never called): lost ones. */
  open: number;
  calls: number;
  callsLive: number;
  /** Leads with more call records than attempts (a lead dialed twice for one attempt), and with fewer. */
  moreCallsThanAttempts: number;
  fewerCallsThanAttempts: number;
  /** Numbers the carrier dialed more often than their leads have call records (checked when a carrier is given). */
  carrierDialedTwice: number;
  mostAtOnce: number;
  /** Time-averaged calls in flight ÷ `parallel`, from the first call's creation to the last call's end. */
  utilisation: number;
  /** From a call's end to the next call created after it (each call answers one end), ms ascending. */
  slotToDialMs: number[];
  spanMs: number;
}

interface CallRow { leadId: number; createdAt: Date; endedAt: Date | null }

/** The campaign's leads and calls, checked; the carrier's dials per number too when `carrier` is given. */
export async function auditCampaign(knex: Knex, campaignId: number, parallel: number, carrier?: ReturnType<typeof sandboxCarrierApi>): Promise<CampaignAudit> {
  const leads: { id: number; phoneNumber: string; status: string; attempts: number; primaryLeadId: number | null }[] = await knex('leads')
    .where({ campaignId }).select('id', 'phoneNumber', 'status', 'attempts', 'primaryLeadId');
  const calls: CallRow[] = await knex('calls').where({ campaignId }).select('leadId', 'createdAt', 'endedAt');
  const callsOf = new Map<number, number>();
  for (const call of calls) callsOf.set(Number(call.leadId), (callsOf.get(Number(call.leadId)) ?? 0) + 1);
  const statuses = new Map<string, number>();
  for (const lead of leads) statuses.set(lead.status, (statuses.get(lead.status) ?? 0) + 1);
  const open = leads.filter((lead) => ['scheduled', 'rescheduled', 'processing'].includes(lead.status) || (lead.status === 'created' && lead.primaryLeadId === null)).length;
  let carrierDialedTwice = 0;
  if (carrier) {
    for (const lead of leads) if ((await carrier.callsTo(lead.phoneNumber)).length > (callsOf.get(Number(lead.id)) ?? 0)) carrierDialedTwice++;
  }

  const ended = calls.filter((call) => call.endedAt !== null).map((call) => ({ from: new Date(call.createdAt).getTime(), to: new Date(call.endedAt as Date).getTime() }));
  const events = ended.flatMap((call) => [{ at: call.from, change: 1 }, { at: call.to, change: -1 }])
    // An end and a start at the same instant: the end first, as the slot is free before it is taken again.
    .sort((a, b) => a.at - b.at || a.change - b.change);
  let live = 0;
  let mostAtOnce = 0;
  for (const event of events) mostAtOnce = Math.max(mostAtOnce, live += event.change);
  const first = Math.min(...ended.map((call) => call.from));
  const last = Math.max(...ended.map((call) => call.to));
  const busyMs = ended.reduce((sum, call) => sum + (call.to - call.from), 0);
  const starts = ended.map((call) => call.from).sort((a, b) => a - b);
  const ends = ended.map((call) => call.to).sort((a, b) => a - b);
  const slotToDialMs: number[] = [];
  let next = 0;
  for (const end of ends) {
    while (next < starts.length && starts[next]! < end) next++;
    if (next >= starts.length) break;
    slotToDialMs.push(starts[next++]! - end);
  }
  return {
    leads: leads.length,
    statuses,
    open,
    calls: calls.length,
    callsLive: calls.length - ended.length,
    moreCallsThanAttempts: leads.filter((lead) => (callsOf.get(Number(lead.id)) ?? 0) > lead.attempts).length,
    fewerCallsThanAttempts: leads.filter((lead) => (callsOf.get(Number(lead.id)) ?? 0) < lead.attempts).length,
    carrierDialedTwice,
    mostAtOnce,
    utilisation: ended.length ? busyMs / ((last - first) * parallel) : 0,
    slotToDialMs: slotToDialMs.sort((a, b) => a - b),
    spanMs: ended.length ? last - first : 0,
  };
}

/** `p50 … / p95 … / max … ms` of an ascending list. */
export function spread(sorted: number[]): string {
  const ms = (value: number) => (Number.isFinite(value) ? `${Math.round(value)}` : '–');
  return `p50 ${ms(percentile(sorted, 50))} / p95 ${ms(percentile(sorted, 95))} / max ${ms(sorted.at(-1) ?? Number.NaN)} ms`;
}

/** `completed 40, reached-max-retries 20` in a stable order. */
export function statusTally(statuses: Map<string, number>): string {
  return [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, count]) => `${status} ${count}`).join(', ');
}
