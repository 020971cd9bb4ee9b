import { describe, expect, it, onTestFinished } from 'vitest';
import type { Activities } from '../../activities/index.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { campaignSignals, workflowTypes, type CampaignInput, type CampaignRound, type PlacedLeadCall } from '../../src/temporal/shared.ts';
import { campaignProgressQuery, type campaignWorkflow } from '../../workflows/campaign.ts';
import { activityGate, startStubWorker, type ActivityGate, type StubWorker } from '../support/workflows.ts';

let lastCampaignId = 0;
// Call ids are workflow ids (`call-<id>`) in this file's namespace: unique across its tests.
let lastCallId = 0;

interface FakeLead {
  id: number;
  attempts: number;
  status: 'created' | 'processing' | 'completed';
}

/**
 * The campaign's rows as the activities keep them, in memory: leads due at once, each completed by its first
 * call. A call (its child `callLifecycle`) lasts as long as its `prepareCall` stub, held `callMs` or at a gate,
 * then ends refused; `live` counts the calls inside it, `maxLive` the most at once.
 */
function fakeCampaign(options: {
  leads: number; maxCallsInParallel: number; opensAt?: number; callMs?: number; gates?: ActivityGate[]; noSlotFirst?: boolean; evaluationGate?: ActivityGate;
}) {
  const leads: FakeLead[] = Array.from({ length: options.leads }, (_, index) => ({ id: index + 1, attempts: 0, status: 'created' }));
  const callLeads = new Map<number, FakeLead>();
  const fake = { leads, status: 'in-progress', live: 0, maxLive: 0, placedAt: [] as number[], noSlotAnswers: 0, placed: 0 };
  let gateIndex = 0;
  const stubs = {
    campaignRound: ({ following, settle = [] }: { following: number[]; settle?: number[] }): Promise<CampaignRound> => {
      for (const callId of settle) {
        const lead = callLeads.get(callId);
        if (lead) lead.status = 'completed';
      }
      const closed = options.opensAt !== undefined && Date.now() < options.opensAt;
      const free = Math.max(options.maxCallsInParallel - following.length, 0);
      return Promise.resolve({
        campaign: { status: fake.status, maxCallsInParallel: options.maxCallsInParallel, markCompleteWhenNoLeads: true },
        windowOpensAt: closed ? new Date(options.opensAt as number).toISOString() : null,
        windowNeverOpens: false,
        due: closed ? [] : leads.filter((lead) => lead.status === 'created').slice(0, free).map((lead) => ({ leadId: lead.id, attempts: lead.attempts })),
        nextDueAt: null,
        open: leads.filter((lead) => lead.status !== 'completed').length,
        settled: [],
        overdue: [],
      });
    },
    placeLeadCalls: ({ leads: due }: { leads: { leadId: number; attempts: number }[] }): Promise<{ outcomes: PlacedLeadCall[] }> => {
      const outcomes: PlacedLeadCall[] = [];
      for (const { leadId, attempts } of due) {
        if (options.noSlotFirst && fake.noSlotAnswers === 0) {
          fake.noSlotAnswers += 1;
          outcomes.push({ outcome: 'no-slot' });
          break;
        }
        const lead = leads.find((candidate) => candidate.id === leadId);
        if (!lead || lead.attempts !== attempts || lead.status !== 'created') {
          outcomes.push({ outcome: 'skipped', reason: 'placed' });
          continue;
        }
        const callId = ++lastCallId;
        lead.attempts += 1;
        lead.status = 'processing';
        callLeads.set(callId, lead);
        fake.placedAt.push(Date.now());
        fake.placed += 1;
        outcomes.push({ outcome: 'placed', callId, userId: 1, assistantId: 1 });
      }
      return Promise.resolve({ outcomes });
    },
    prepareCall: async () => {
      fake.live += 1;
      fake.maxLive = Math.max(fake.maxLive, fake.live);
      const gate = options.gates?.[gateIndex++];
      if (gate) await gate.pass();
      else await new Promise((resolve) => setTimeout(resolve, options.callMs ?? 150));
      fake.live -= 1;
      return { outcome: 'refused' as const, reason: 'insufficient_balance' as const };
    },
    finalizeCall: () => Promise.resolve({ status: 'failed' as const, evaluate: options.evaluationGate !== undefined }),
    evaluateCall: async ({ callId }: { callId: number }) => {
      if (callId === Math.min(...callLeads.keys())) await options.evaluationGate?.pass();
      return { evaluated: true };
    },
    finishCampaign: ({ status }: { status: string }) => {
      fake.status = status;
      return Promise.resolve();
    },
  } satisfies Partial<Activities>;
  return { fake, stubs };
}

async function run(stubs: Partial<Activities>, input: Omit<CampaignInput, 'campaignId'> = {}) {
  const worker: StubWorker = await startStubWorker(stubs);
  onTestFinished(() => worker.stop());
  const campaignId = ++lastCampaignId;
  const handle = await worker.temporal.client.workflow.start<typeof campaignWorkflow>(workflowTypes.campaign, {
    taskQueue: worker.temporal.taskQueue,
    workflowId: workflowIds.campaign(campaignId),
    args: [{ campaignId, ...input }],
  });
  return { worker, handle };
}

const count = (worker: StubWorker, name: keyof Activities) => worker.calls.filter((call) => call.name === name).length;

describe('campaignWorkflow', () => {
  it('dials every lead, never more calls at once than max_calls_in_parallel, continues as new every few dials, and completes', async () => {
    const { fake, stubs } = fakeCampaign({ leads: 7, maxCallsInParallel: 2 });
    const { worker, handle } = await run(stubs, { dialsPerRun: 3 });
    const firstRunId = handle.firstExecutionRunId;
    expect(await handle.result()).toEqual({ reason: 'completed' });
    expect(fake.leads.map((lead) => [lead.status, lead.attempts])).toEqual(Array(7).fill(['completed', 1]));
    expect(fake.maxLive).toBe(2);
    expect(fake.status).toBe('completed');
    expect(fake.placed).toBe(7);
    const first = await worker.temporal.client.workflow.getHandle(handle.workflowId, firstRunId).describe();
    expect(first.status.name).toBe('CONTINUED_AS_NEW');
  });

  it('dials nothing outside the calling window, sleeps until it opens, then dials', async () => {
    const opensAt = Date.now() + 3000;
    const { fake, stubs } = fakeCampaign({ leads: 2, maxCallsInParallel: 2, opensAt });
    const { worker, handle } = await run(stubs);
    await expect.poll(() => handle.query(campaignProgressQuery), { timeout: 10_000 })
      .toEqual({ phase: 'waiting-for-window', callsInFlight: [], dialed: 0, windowOpensAt: new Date(opensAt).toISOString() });
    expect(await handle.result()).toEqual({ reason: 'completed' });
    expect(fake.placedAt).toHaveLength(2);
    for (const at of fake.placedAt) expect(at).toBeGreaterThanOrEqual(opensAt);
    // Asleep until the opening: a round before it and a few after, not a round every moment.
    expect(count(worker, 'campaignRound')).toBeLessThan(8);
  });

  it('stops: the calls in progress are asked to end, nothing new is dialed, and it ends when they have', async () => {
    const gates = [activityGate(), activityGate()];
    const { fake, stubs } = fakeCampaign({ leads: 4, maxCallsInParallel: 2, gates });
    const { worker, handle } = await run(stubs);
    await Promise.all(gates.map((gate) => gate.entered));
    const { callsInFlight } = await handle.query(campaignProgressQuery);
    expect(callsInFlight).toHaveLength(2);
    fake.status = 'stopped';
    await handle.signal(campaignSignals.stop);
    for (const callId of callsInFlight) {
      const child = worker.temporal.client.workflow.getHandle(workflowIds.call(callId));
      await expect.poll(async () => ((await child.fetchHistory()).events ?? [])
        .map((event) => event.workflowExecutionSignaledEventAttributes?.signalName), { timeout: 10_000 }).toContain('endCall');
    }
    for (const gate of gates) gate.release();
    expect(await handle.result()).toEqual({ reason: 'stopped' });
    expect(fake.placed).toBe(2);
    expect(fake.leads.filter((lead) => lead.status === 'created')).toHaveLength(2);
  });

  it('a call being evaluated gives its place up: the next lead is dialed meanwhile, and its own lead settles once it finished', async () => {
    const evaluationGate = activityGate();
    const { fake, stubs } = fakeCampaign({ leads: 2, maxCallsInParallel: 1, evaluationGate, callMs: 10 });
    const { handle } = await run(stubs);
    await evaluationGate.entered;
    await expect.poll(() => fake.placed, { timeout: 10_000 }).toBe(2);
    expect(fake.leads[0]).toMatchObject({ status: 'processing' });
    evaluationGate.release();
    expect(await handle.result()).toEqual({ reason: 'completed' });
    expect(fake.leads.map((lead) => lead.status)).toEqual(['completed', 'completed']);
  });

  it('a due lead refused for want of an account slot is tried again later, and it is no attempt', async () => {
    const { fake, stubs } = fakeCampaign({ leads: 1, maxCallsInParallel: 1, noSlotFirst: true });
    const { worker, handle } = await run(stubs, { noSlotWaitMs: 300 });
    expect(await handle.result()).toEqual({ reason: 'completed' });
    expect(fake.noSlotAnswers).toBe(1);
    expect(count(worker, 'placeLeadCalls')).toBe(2);
    expect(fake.leads[0]).toMatchObject({ status: 'completed', attempts: 1 });
  });
});
