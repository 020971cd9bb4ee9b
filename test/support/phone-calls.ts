import { expect } from 'vitest';
import { workflowIds } from '../../src/temporal/names.ts';
import { lastUserText, type ChatCompletionRequest, type FakeTurn } from '../fakes/llm-server.ts';
import type { TestPlatform } from './platform.ts';
import { createTestUser, type TestUser } from './users.ts';

/** The simulated person the sandbox network rings at a number ending in 23 (and at a transfer's default callee). */
export const PERSON = '+14155550123';

/**
 * The fake model's side of a call with the simulated person: it meets Sam, says goodbye when Sam does, and
 * answers the post-call evaluation.
 */
export function personCalleeTurn(request: ChatCompletionRequest): FakeTurn {
  if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Sam is interested.' } }] };
  // Whisper hears espeak-ng's "goodbye" over a phone line as "goodbye" or "bye".
  if (/\bbye|goodbye/i.test(lastUserText(request))) return { reply: 'Thank you Sam, goodbye.' };
  return { reply: 'Nice to meet you, Sam. I am calling about Parley.' };
}

/**
 * Who spoke, turn by turn, with the caller's consecutive turns as one: a line the person says with a pause in it
 * (a comma over a phone line can leave 250-300 ms of silence) may be committed in pieces, each answered by a
 * draft the caller's next words stop before any of it is heard. An assistant turn between them would be a reply
 * heard while the caller was still talking.
 */
export function speakers(turns: { role: string }[]): string[] {
  return turns.map((turn) => turn.role).filter((role, index, roles) => role !== 'user' || roles[index - 1] !== 'user');
}

export interface BoughtNumber {
  id: number;
  phone_number: string;
}

/** A fresh owner ($5 and a card on file) who has bought the first `count` numbers the carrier offers in the US. */
export async function ownerWithNumbers(platform: TestPlatform, count = 1): Promise<{ owner: TestUser; numbers: BoughtNumber[] }> {
  const owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
  await platform.request('POST', '/user/payment-methods', { token: owner.token, body: { payment_method: 'pm_card_visa' } });
  const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: owner.token });
  const numbers: BoughtNumber[] = [];
  for (const offer of offers.body.data.slice(0, count)) {
    const bought = await platform.request<{ data: BoughtNumber }>('POST', '/user/phone-numbers/purchase', { token: owner.token, body: { phone_number: offer.phone_number } });
    expect(bought.status, bought.text).toBe(201);
    numbers.push(bought.body.data);
  }
  return { owner, numbers };
}

/** Places a call with `POST /user/make_call`; its id, once accepted. */
export async function placeCall(platform: TestPlatform, owner: TestUser, body: Record<string, unknown>): Promise<number> {
  const placed = await platform.request('POST', '/user/make_call', { token: owner.token, body });
  expect(placed.status, placed.text).toBe(200);
  expect(placed.body).toEqual({ message: 'Call initiated successfully', data: {}, call_id: expect.any(Number), status: 'initiated' });
  return placed.body.call_id as number;
}

/** Waits for the call's lifecycle to finish; then the call as the API shows it, and its row. */
export async function settledCall(platform: TestPlatform, owner: TestUser, callId: number) {
  await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
  const shown = await platform.request('GET', `/user/calls/${callId}`, { token: owner.token });
  return { shown: shown.body as Record<string, unknown>, row: await platform.database.knex('calls').where({ id: callId }).first() };
}

/** Places a call and waits for it to be over: {@link placeCall}, then {@link settledCall}. */
export async function finishedCall(platform: TestPlatform, owner: TestUser, body: Record<string, unknown>) {
  return settledCall(platform, owner, await placeCall(platform, owner, body));
}

/**
 * Calls the person with the assistant, whose model transfers the call, and waits for the call's lifecycle, then
 * for the transfer's outcome (which comes after), then for the carrier's end of the caller's call (which comes
 * after Parley's record: the caller's call ends once the far side's does).
 */
export async function transferredCall(platform: TestPlatform, owner: TestUser, assistantId: number) {
  const callId = await placeCall(platform, owner, { phone_number: PERSON, assistant_id: assistantId });
  await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
  const transferStatus = async () => ((await platform.database.knex('calls').where({ id: callId }).first()).transfers as { status: string }[])[0]?.status;
  await expect.poll(transferStatus, { timeout: 20_000, interval: 200 }).not.toMatch(/^(requested|connected)$/);
  const { shown, row } = await settledCall(platform, owner, callId);
  const carried = () => platform.sandboxCarrier!.get(row.providerCallId as string);
  await expect.poll(() => carried()?.status, { timeout: 10_000, interval: 100 }).toBe('completed');
  return { shown, row, carried: carried()! };
}
