import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type ChatCompletionRequest, type FakeLlmServer, type FakeTurn } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { ownerWithNumbers, transferredCall as transferred, type BoughtNumber } from '../support/phone-calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import type { TestUser } from '../support/users.ts';

const SUMMARY = 'Sam is calling about a late delivery and wants a refund.';

/**
 * `warm_call_transfer` end to end on the embedded default: an outbound call through the sandbox carrier, whose
 * callee answers; the model calls the tool, the caller hears the hold message and then waits with hold music
 * while the supervisor (the callee the number's last two digits choose) is rung, briefed with a summary the
 * model wrote, and bridged; a supervisor who does not answer leaves the caller an apology instead of hold
 * music for ever.
 */
describe.skipIf(!speechInstalled)(`warm transfers to a supervisor through the sandbox carrier${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  let outboundNumber = '';
  const assistants: Record<'person' | 'unanswered', number> = { person: 0, unanswered: 0 };

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond((request: ChatCompletionRequest): FakeTurn => {
      if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Transferred.' } }] };
      const system = request.messages[0]?.content ?? '';
      // The briefing's summary: the one assistant's model writes it, the other's fails.
      if (system.includes('BRIEF-OK')) return { reply: SUMMARY };
      if (system.includes('BRIEF-FAIL')) return { status: 400, error: 'The summary model is unavailable.' };
      if (request.messages.at(-1)?.role === 'tool') return { reply: 'I am connecting you with my supervisor now.' };
      return { toolCalls: [{ name: 'warm_call_transfer', arguments: {} }] };
    });
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    const bought = await ownerWithNumbers(platform);
    owner = bought.owner;
    const [number] = bought.numbers as [BoughtNumber];
    outboundNumber = number.phone_number;
    const transferring = (tool: Record<string, unknown>, settings: Record<string, unknown> = {}) => createTestAssistant(platform, owner, {
      ...settings,
      initial_message: 'Hello, this is Parley calling.',
      phone_number_id: number.id,
      tools: [{ type: 'warm_call_transfer', outbound_phone_id: number.id, description: 'Transfer to the supervisor when the caller asks for one.', ...tool }],
    });
    assistants.person = (await transferring({
      supervisor_phone: '+14155550142', hold_music_volume: 40, hold_message: 'Please hold for a moment.', summary_instructions: 'BRIEF-OK: summarise the call.',
      briefing_initial_message: 'Hi, a caller for you.', connected_message: 'You are through to my supervisor now.',
    })).id;
    // The supervisor's phone rings as long as the assistant's calls: two seconds here.
    assistants.unanswered = (await transferring({ supervisor_phone: '+14155550185', hold_music: 'none', summary_instructions: 'BRIEF-FAIL: summarise the call.' }, { ringing_time: 2 })).id;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  /** Calls a person with the assistant, waits for the call's lifecycle and then for the transfer's outcome. */
  const transferredCall = (assistant: keyof typeof assistants) => transferred(platform, owner, assistants[assistant]);

  it('holds the caller with music, briefs the supervisor with the model\'s summary, then bridges them after the connected message', async () => {
    const { shown, row, carried } = await transferredCall('person');
    expect(shown).toMatchObject({ status: 'completed', end_reason: 'transferred' });
    // The hold message was heard, so it is in the transcript; what follows on hold is the carrier's.
    expect(row.transcript).toMatch(/^AI: Hello, this is Parley calling\.\nCustomer: .+\nAI: I am connecting you with my supervisor now\.\nAI: Please hold for a moment\.$/);
    const briefing = `Hi, a caller for you. ${SUMMARY}`;
    expect(shown.transfers).toEqual([{
      type: 'supervisor', to: '+14155550142', caller_id: outboundNumber, briefing, summary_source: 'model', connected_message: 'You are through to my supervisor now.',
      hold_music_volume: 40, status: 'completed', requested_at: expect.any(String), connected_at: expect.any(String), ended_at: expect.any(String),
      duration: expect.any(Number), error: null, supervisor_call_id: carried.warmTransfer!.supervisorSid,
    }]);
    expect(carried.warmTransfer).toMatchObject({
      to: '+14155550142', callee: 'person', room: `parley-call-${row.id}`, status: 'completed', briefing, callerHeard: 'You are through to my supervisor now.',
    });
    // Volume 40 of a full level of 0.5: the caller heard music at a fifth of full scale.
    expect(carried.warmTransfer!.holdMusicPeak).toBeCloseTo(0.2, 2);
    expect(carried.warmTransfer!.bridgedAt).toBeGreaterThan(carried.warmTransfer!.answeredAt!);
    // The summary was asked of the assistant's model with the instructions and the conversation so far.
    const asked = llm.requests.find((request) => request.messages[0]?.content?.includes('BRIEF-OK'))!;
    expect(asked.tools ?? []).toEqual([]);
    expect(asked.messages.at(-1)!.content).toMatch(/Assistant: Hello, this is Parley calling\.\nCaller: .+/);
  }, 90_000);

  it('tells the caller and ends the call when the supervisor does not answer, briefing from the last turns when the model fails', async () => {
    const { shown, carried } = await transferredCall('unanswered');
    expect(shown).toMatchObject({ status: 'completed', end_reason: 'transferred' });
    const [transfer] = shown.transfers as Record<string, unknown>[];
    expect(transfer).toMatchObject({ type: 'supervisor', to: '+14155550185', status: 'no-answer', summary_source: 'last_turns', hold_music_volume: null, connected_at: null, error: null });
    expect(transfer!.briefing).toMatch(/^Hello, I have a caller for you\. Here is a short summary\. The last words were: I said: "Hello, this is Parley calling\."; the caller said: ".+"/);
    expect(carried.warmTransfer).toMatchObject({ callee: 'no-answer', status: 'no-answer', holdMusicPeak: 0, callerHeard: 'Sorry, nobody could take your call right now. Please try again later. Goodbye.' });
    expect(carried.warmTransfer!.briefing).toBeUndefined();
  }, 90_000);
});
