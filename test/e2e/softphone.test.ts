import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawNumbers } from '../../src/providers/telephony/sandbox-inventory.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { type FakeLlmServer, lastUserText, startFakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { launchChromium, screenshots, spokenWav } from '../support/browser.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';


/** Counts the audio frames the page's socket receives that hold sound (the far end speaking), not line silence. */
function countHeardFrames(page: Page): () => number {
  let heard = 0;
  page.on('websocket', (socket) => socket.on('framereceived', ({ payload }) => {
    if (typeof payload === 'string') return;
    const samples = new Int16Array(payload.buffer.slice(payload.byteOffset, payload.byteOffset + (payload.byteLength & ~1)));
    let sum = 0;
    for (const sample of samples) sum += Math.abs(sample);
    if (samples.length > 0 && sum / samples.length > 300) heard++;
  }));
  return () => heard;
}

/**
 * The caller's line as the assistant may hear it: Whisper hears the browser's microphone through the carrier's
 * 8 kHz μ-law and, on a busy machine, not always word for word ("I would like to welcome for two days free.");
 * its word error rate is a figure of the benchmarks, not of this test.
 */
const CALLERS_LINE = /would like|appointment|tuesday/i;

/**
 * A person at the sandbox softphone in a browser, end to end: the page claims a number; an assistant calls it
 * with `POST /user/make_call`, the page rings and is answered, the assistant's greeting plays on the page and
 * the browser's microphone (a WAV) reaches the assistant through the carrier's 8 kHz line, the media gateway,
 * the offline speech stack and the fake language model; then the page dials one of the owner's numbers and
 * reaches its inbound assistant.
 */
describe.skipIf(!speechInstalled)(`the sandbox softphone in a browser${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let browser: Browser;
  let owner: TestUser;
  let assistantId: number;
  let inboundNumber: string;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-softphone-'));
    llm = await startFakeLlmServer();
    // The caller's booking is answered by asking for their account number on the keypad, then the booking.
    llm.respond((request) => {
      if (request.tool_choice) return { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Booked.' } }] };
      if (request.messages.at(-1)?.role === 'tool') return { reply: 'Sure, Tuesday at three works.' };
      if (CALLERS_LINE.test(lastUserText(request))) return { toolCalls: [{ name: 'collect_keypad', arguments: {} }] };
      return { reply: 'Sorry, what would you like?' };
    });
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    await platform.request('POST', '/user/payment-methods', { token: owner.token, body: { payment_method: 'pm_card_visa' } });
    const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: owner.token });
    const buy = (index: number) => platform.request<{ data: { id: number; phone_number: string } }>('POST', '/user/phone-numbers/purchase', { token: owner.token, body: { phone_number: offers.body.data[index]!.phone_number } });
    const [outbound, inbound] = [await buy(0), await buy(1)];
    assistantId = (await createTestAssistant(platform, owner, {
      initial_message: 'Hello, this is Parley calling.', phone_number_id: outbound.body.data.id, tools: [{ type: 'collect_keypad', timeout: 5 }],
    })).id;
    inboundNumber = inbound.body.data.phone_number;
    await createTestAssistant(platform, owner, { type: 'inbound', initial_message: 'Thanks for calling Parley, this is Ada.', phone_number_id: inbound.body.data.id });
    // Six seconds of silence before the line: a callee who talks over the assistant's opening line for 3 s is
    // judged a voicemail greeting.
    browser = await launchChromium({ autoplay: true, microphone: spokenWav(scratch, 'I would like to book an appointment for Tuesday at three.', { before: 6, after: 12 }) });
    fs.mkdirSync(screenshots, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await llm?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  const knex = () => platform.database.knex;
  const callRow = (id: number) => knex()('calls').where({ id }).first();

  it('answers an outbound call with the microphone and types on its keypad, then places an inbound call to an owned number', async () => {
    const page = await browser.newPage({ viewport: { width: 480, height: 900 } });
    const heardFrames = countHeardFrames(page);
    const status = page.getByRole('status');
    await page.goto(`${platform.baseUrl}/sandbox/phone`);
    await expect.poll(() => status.textContent()).toBe('Claim a number to start.');
    const myNumber = drawNumbers('US', '', 1)[0]!.phoneNumber;
    await page.getByLabel('Your number').fill(myNumber);
    await page.getByRole('button', { name: 'Claim' }).click();
    await expect.poll(() => status.textContent()).toBe(`Your number is ${myNumber}. Waiting for calls.`);

    // The assistant calls the page's number; the page rings with the assistant's number.
    const placed = await platform.request('POST', '/user/make_call', { token: owner.token, body: { phone_number: myNumber, assistant_id: assistantId } });
    expect(placed.status, placed.text).toBe(200);
    const callId = placed.body.call_id as number;
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toMatch(/^Incoming call from \+1\d{10}…$/);
    await page.getByRole('button', { name: 'Answer' }).click();
    await expect.poll(() => status.textContent()).toBe('Connected.');
    await expect.poll(async () => (await callRow(callId)).status, { timeout: 10_000 }).toBe('in-progress');
    // The greeting plays on the page, then the caller's line reaches the assistant.
    await expect.poll(heardFrames, { timeout: 10_000 }).toBeGreaterThan(25);
    await expect.poll(() => llm.requests.some((request) => CALLERS_LINE.test(lastUserText(request))), { timeout: 30_000 }).toBe(true);
    // The assistant collects a number on the keypad: in a call its keys send tones, and the number's + and ⌫ wait.
    const key = (name: string) => page.locator('#keypad button', { hasText: name });
    expect(await key('+').isDisabled()).toBe(true);
    // A key clicked, and one typed on the keyboard.
    await key('4').click();
    await page.keyboard.press('2');
    const entries = () => llm.requests.map((request) => request.messages.at(-1)!).filter((message) => message.role === 'tool').map((message) => JSON.parse(message.content!) as unknown);
    await expect.poll(entries, { timeout: 20_000 }).toEqual([{ digits: '42', ended_by: 'timeout' }]);
    await page.screenshot({ path: path.join(screenshots, 'softphone.png') });
    await page.getByRole('button', { name: 'Hang up' }).click();
    await expect.poll(() => status.textContent()).toBe('Call ended.');
    const outbound = await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result() as { status: string };
    expect(outbound.status).toBe('ended_by_customer');
    const answered = await callRow(callId);
    expect(answered).toMatchObject({ type: 'outbound', clientPhoneNumber: myNumber });
    // Where the fake microphone's loop starts is the browser's choice: the caller's line is in one of their turns.
    expect(answered.transcript).toMatch(/^AI: Hello, this is Parley calling\.\n/);
    expect(answered.transcript).toMatch(new RegExp(`\\nCustomer: [^\\n]*(${CALLERS_LINE.source})`, 'i'));
    expect(platform.sandboxCarrier!.get(answered.providerCallId as string)).toMatchObject({ callee: 'softphone', status: 'completed' });

    // The page dials the owner's other number and reaches its inbound assistant.
    const heardBefore = heardFrames();
    await page.getByLabel('Number to call').fill(inboundNumber);
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await expect.poll(() => status.textContent(), { timeout: 10_000 }).toBe('Connected.');
    const inbound = await knex()('calls').where({ userId: owner.id, type: 'inbound' }).first();
    expect(inbound).toMatchObject({ clientPhoneNumber: myNumber, assistantPhoneNumber: inboundNumber });
    await expect.poll(heardFrames, { timeout: 10_000 }).toBeGreaterThan(heardBefore + 25);
    await page.getByRole('button', { name: 'Hang up' }).click();
    await expect.poll(() => status.textContent()).toBe('Call ended.');
    await platform.temporal.client.workflow.getHandle(workflowIds.call(Number(inbound.id))).result();
    const received = await callRow(Number(inbound.id));
    expect(received).toMatchObject({ type: 'inbound', status: 'ended_by_customer', clientPhoneNumber: myNumber });
    // Hung up during the greeting: the transcript holds what the caller heard of it.
    expect(received.transcript).toMatch(/^AI: Thanks for calling/);
  }, 90_000);
});
