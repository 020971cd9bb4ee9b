import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlmServer, type ChatCompletionRequest, type FakeLlmServer, type FakeTurn } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { ownerWithNumbers, transferredCall as transferred, type BoughtNumber } from '../support/phone-calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import type { TestUser } from '../support/users.ts';

/**
 * `call_transfer` end to end on the embedded default: an outbound call through the sandbox carrier, whose
 * callee answers; the model transfers the call, its closing words are heard, and the carrier bridges the
 * caller to the callee the transfer number's last two digits choose, reporting the outcome as Twilio's
 * `<Dial action>` would.
 */
describe.skipIf(!speechInstalled)(`transferring phone calls through the sandbox carrier${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let owner: TestUser;
  const assistants: Record<'person' | 'busy', number> = { person: 0, busy: 0 };

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond((request: ChatCompletionRequest): FakeTurn => {
      if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Transferred.' } }] };
      if (request.messages.at(-1)?.role === 'tool') return { reply: 'I am connecting you with a colleague now.' };
      return { toolCalls: [{ name: 'call_transfer', arguments: {} }] };
    });
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    const bought = await ownerWithNumbers(platform);
    owner = bought.owner;
    const [number] = bought.numbers as [BoughtNumber];
    const transferring = (tool: Record<string, unknown>) => createTestAssistant(platform, owner, {
      initial_message: 'Hello, this is Parley calling.', phone_number_id: number.id, tools: [{ type: 'call_transfer', ...tool }],
    });
    assistants.person = (await transferring({ phone_number: '+14155550142', warm_transfer: true, warm_transfer_message: 'A caller from the sandbox wants a person.' })).id;
    assistants.busy = (await transferring({ phone_number: '+14155550181' })).id;
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  /** Calls a person with the assistant, waits for the call's lifecycle and then for the transfer's outcome. */
  const transferredCall = (assistant: keyof typeof assistants) => transferred(platform, owner, assistants[assistant]);

  it('bridges the caller to the person at the number after the closing words, the person hearing the warm message first', async () => {
    const { shown, row } = await transferredCall('person');
    expect(shown).toMatchObject({ status: 'completed', end_reason: 'transferred' });
    expect(row.transcript).toMatch(/^AI: Hello, this is Parley calling\.\nCustomer: .+\nAI: I am connecting you with a colleague now\.$/);
    expect(shown.transfers).toEqual([{
      type: 'phone', to: '+14155550142', warm: true, message: 'A caller from the sandbox wants a person.', status: 'completed',
      requested_at: expect.any(String), ended_at: expect.any(String), duration: expect.any(Number), error: null,
    }]);
    expect((shown.transfers as { duration: number }[])[0]!.duration).toBeGreaterThanOrEqual(2);
    // Parley's part of the call ends at the hand-over: the bridged minutes are the carrier's, not the assistant's.
    expect(Number(row.totalCostMicros)).toBeGreaterThan(0);
    const carried = platform.sandboxCarrier!.get(row.providerCallId as string)!;
    expect(carried).toMatchObject({ status: 'completed', transfer: { to: '+14155550142', callee: 'person', status: 'completed', whisper: 'A caller from the sandbox wants a person.' } });
    // The line was handed over only after the closing words had been played to the callee.
    expect(carried.transfer!.answeredAt! - carried.firstSoundAt!).toBeGreaterThan(2000);
  }, 90_000);

  it('records a busy number as the transfer\'s outcome; the call itself completed', async () => {
    const { shown, row } = await transferredCall('busy');
    expect(shown).toMatchObject({ status: 'completed', end_reason: 'transferred', transfers: [{ to: '+14155550181', warm: false, status: 'busy', duration: 0 }] });
    expect(platform.sandboxCarrier!.get(row.providerCallId as string)!.transfer).toMatchObject({ callee: 'busy', status: 'busy' });
  }, 90_000);
});
