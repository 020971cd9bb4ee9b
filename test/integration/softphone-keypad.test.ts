import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { drawNumbers } from '../../src/providers/telephony/sandbox-inventory.ts';
import { workflowIds } from '../../src/temporal/names.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { level, Page } from '../support/softphone.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser } from '../support/users.ts';

/**
 * The softphone's keys on a real call: an assistant with `collect_keypad` calls the page, and the keys the page
 * sends over its socket reach the voice engine through the carrier's line and the media gateway, first as the
 * caller's turn, then as the entry the tool collects. test/e2e/softphone.test.ts presses them in a browser.
 */
describe.skipIf(!speechInstalled)(`the softphone's keypad on a call with an assistant${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;

  beforeAll(async () => {
    llm = await startFakeLlmServer();
    llm.respond((request) => (request.messages.at(-1)?.role === 'tool'
      ? { reply: 'Thank you, I have your account.' }
      : { toolCalls: [{ name: 'collect_keypad', arguments: {} }] }));
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test' } });
  }, 60_000);
  afterAll(async () => {
    await platform?.close();
    await llm?.close();
  });

  it('hands the keys pressed on the page to the caller\'s turn and to collect_keypad', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    await platform.request('POST', '/user/payment-methods', { token: owner.token, body: { payment_method: 'pm_card_visa' } });
    const offers = await platform.request<{ data: { phone_number: string }[] }>('GET', '/user/phone-numbers/search?country_code=US', { token: owner.token });
    const bought = await platform.request<{ data: { id: number } }>('POST', '/user/phone-numbers/purchase', { token: owner.token, body: { phone_number: offers.body.data[0]!.phone_number } });
    const assistant = await createTestAssistant(platform, owner, {
      initial_message: 'Hello.', phone_number_id: bought.body.data.id, tools: [{ type: 'collect_keypad', timeout: 1 }],
    });
    const socket = new WebSocket(`${platform.baseUrl.replace('http', 'ws')}/sandbox/phone/socket`);
    const page = new Page(socket);
    await once(socket, 'open');
    const myNumber = drawNumbers('US', '', 1)[0]!.phoneNumber;
    expect(await page.claim(myNumber)).toEqual({ type: 'claimed', number: myNumber });

    const placed = await platform.request('POST', '/user/make_call', { token: owner.token, body: { phone_number: myNumber, assistant_id: assistant.id } });
    expect(placed.status, placed.text).toBe(200);
    const callId = placed.body.call_id as number;
    await page.next('incoming');
    page.send({ type: 'answer' });
    await page.next('connected');
    // The greeting plays: the media gateway is on the line.
    await expect.poll(() => level(page.audio), { timeout: 10_000 }).toBeGreaterThan(50);

    // Keys outside a collection are the caller's turn, handed on at `#`: the model asks for the keypad.
    for (const digit of '7#') page.send({ type: 'dtmf', digit });
    await expect.poll(() => llm.requests.length, { timeout: 10_000 }).toBe(1);
    expect(llm.requests[0]!.messages.at(-1)).toMatchObject({ role: 'user', content: '[pressed 7#]' });
    // Typed as the tool starts or just after: the entry holds them, and ends a second after the last.
    for (const digit of '1234') page.send({ type: 'dtmf', digit });
    await expect.poll(() => llm.requests.length, { timeout: 10_000 }).toBe(2);
    const entry = llm.requests[1]!.messages.at(-1)!;
    expect(entry.role).toBe('tool');
    expect(JSON.parse(entry.content!)).toEqual({ digits: '1234', ended_by: 'timeout' });

    page.send({ type: 'hangup' });
    await page.next('ended');
    await platform.temporal.client.workflow.getHandle(workflowIds.call(callId)).result();
    socket.close();
  }, 60_000);
});
