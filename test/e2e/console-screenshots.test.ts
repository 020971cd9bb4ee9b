import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/llm-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { launchChromium } from '../support/browser.ts';
import { insertCalls, spokenTurns, type CallRow } from '../support/calls.ts';
import { ownerWithNumbers, PERSON, personCalleeTurn, placeCall, settledCall } from '../support/phone-calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import type { TestUser } from '../support/users.ts';

/**
 * `npm run screenshots:console`: every page of the console at a laptop's and a phone's size, written to
 * CONSOLE_SCREENSHOTS (docs/console), for the README. One account is filled through the API as a user would fill it
 * (assistants, numbers, a real sandbox call, a campaign with imported leads, a knowledge base, a key), plus a month of
 * earlier calls written to the database so the overview and the call list have a history to show. Skipped unless
 * CONSOLE_SCREENSHOTS is set.
 */
const target = process.env.CONSOLE_SCREENSHOTS;
const SIZES = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

/** A month of calls: a few a day, most answered, with the latencies a local speech stack gives (a fixed sequence). */
function history(): CallRow[] {
  let seed = 7;
  const random = () => {
    seed = (seed * 16807) % 2147483647;
    return seed / 2147483647;
  };
  const rows: CallRow[] = [];
  for (let day = 29; day >= 1; day--) {
    for (let index = 0; index < 4 + Math.floor(random() * 6); index++) {
      const at = new Date(Date.now() - day * 86_400_000 + index * 3_600_000);
      const roll = random();
      const answered = roll < 0.78;
      const latencies = answered ? [0, 1, 2].map(() => Math.round(650 + random() * 500 + (random() < 0.1 ? 900 : 0))) : [];
      rows.push({
        type: roll < 0.15 ? 'web' : 'outbound',
        status: answered ? (roll < 0.5 ? 'completed' : 'ended_by_customer') : roll < 0.9 ? 'no-answer' : 'busy',
        assistant_name: 'Front desk',
        client_phone_number: `+1415555${String(1000 + Math.floor(random() * 8000)).padStart(4, '0')}`,
        duration: answered ? 40 + Math.floor(random() * 200) : 0,
        total_cost_micros: answered ? 20_000 + Math.floor(random() * 60_000) : 0,
        turns: spokenTurns(at, latencies.flatMap((latency, turn) => [
          { role: 'user' as const, text: 'I would like to book a table.', fromMs: turn * 6000, toMs: turn * 6000 + 1800 },
          {
            role: 'assistant' as const, text: 'Of course, for how many people?', fromMs: turn * 6000 + 1800 + latency, toMs: turn * 6000 + 4000,
            metrics: { end_of_speech_to_first_audio_ms: latency, stt_final_delay_ms: Math.round(latency * 0.45), llm_first_token_ms: Math.round(latency * 0.3), tts_first_byte_ms: Math.round(latency * 0.2) },
          },
        ])),
        created_at: at.toISOString(),
        answered_at: answered ? at.toISOString() : null,
        ended_at: new Date(at.getTime() + 30_000 + (answered ? 240_000 : 0)).toISOString(),
      });
    }
  }
  return rows;
}

describe.runIf(target)('screenshots of the console', () => {
  let llm: FakeLlmServer;
  let receiver: WebhookReceiver;
  let platform: TestPlatform;
  let owner: TestUser;
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    llm = await startFakeLlmServer({ chunkSize: 4 });
    llm.respond((request) => (request.messages.at(-1)?.content === 'Do you have a table for two tonight?'
      ? { reply: 'We do: seven or half past eight. Which would you like?' } : personCalleeTurn(request)));
    receiver = await startWebhookReceiver();
    platform = await startTestPlatform({ worker: true, media: true, env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
    const bought = await ownerWithNumbers(platform, 2);
    owner = bought.owner;
    await platform.database.knex('users').where({ id: owner.id }).update({ name: 'Ada Lovelace' });
    const api = (method: string, route: string, body?: unknown) => platform.request(method, route, { token: owner.token, body });
    const folder = (await api('POST', '/user/folder', { name: 'Restaurants', color: 'teal' })).body.data.id as number;
    const label = (await api('POST', '/user/label', { name: 'Live', color: 'green' })).body.data.id as number;
    ids.assistant = (await createTestAssistant(platform, owner, {
      name: 'Front desk', initial_message: 'Hello, this is Parley calling.', system_prompt: 'You take table bookings for Chez Ada.', phone_number_id: bought.numbers[0]!.id,
      record: true, is_webhook_active: true, webhook_url: receiver.url, folder_id: folder, label_ids: [label], post_call_schema: [{ name: 'party_size', type: 'number', description: 'How many people' }],
    })).id;
    await createTestAssistant(platform, owner, { name: 'Reception', type: 'inbound', phone_number_id: bought.numbers[1]!.id, folder_id: folder });
    await createTestAssistant(platform, owner, { name: 'Reminders', label_ids: [label] });
    await insertCalls(platform.database.knex, owner.id, history());
    ids.call = await placeCall(platform, owner, { phone_number: PERSON, assistant_id: ids.assistant });
    await settledCall(platform, owner, ids.call);
    await receiver.arrived(1);

    ids.campaign = (await api('POST', '/user/campaign', { name: 'Autumn menu', assistant_id: ids.assistant, timezone: 'Europe/London', allowed_hours_start_time: '09:00', allowed_hours_end_time: '19:00' })).body.data.id;
    const leads = ['phone_number,customer_name', ...Array.from({ length: 12 }, (_, index) => `+1415555${String(2000 + index)},Guest ${index + 1}`)].join('\n');
    await platform.request('POST', `/user/campaigns/${ids.campaign}/leads/import`, { token: owner.token, body: leads, headers: { 'content-type': 'text/csv' } });
    const created = (await api('GET', `/user/leads?campaign_id=${ids.campaign}&per_page=100`)).body.data as { id: number }[];
    for (const [index, lead] of created.entries()) {
      if (index < 5) await api('PUT', `/user/leads/${lead.id}`, { status: 'completed' });
      else if (index < 7) await api('PUT', `/user/leads/${lead.id}`, { status: 'reached-max-retries' });
    }

    ids.knowledge = (await api('POST', '/user/knowledgebases', { name: 'Chez Ada', description: 'Menu and opening hours' })).body.data.id;
    const form = new FormData();
    form.set('name', 'Opening hours');
    form.set('type', 'txt');
    form.set('file', new Blob(['Chez Ada is open from noon to eleven, Tuesday to Sunday. Tables for up to eight people can be booked by phone.']), 'hours.txt');
    await fetch(`${platform.baseUrl}/api/user/knowledgebases/${ids.knowledge}/documents`, { method: 'POST', headers: { authorization: `Bearer ${owner.token}` }, body: form });
    for (let waited = 0; (await api('GET', `/user/knowledgebases/${ids.knowledge}`)).body.data.status !== 'active'; waited += 200) {
      if (waited > 30_000) throw new Error('the knowledge base never became active');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    await api('POST', '/user/api-keys', { name: 'Booking system' });
  }, 180_000);
  afterAll(async () => {
    await platform?.close();
    await receiver?.close();
    await llm?.close();
  });

  it('writes every page at both sizes', async () => {
    fs.mkdirSync(target!, { recursive: true });
    const browser = await launchChromium();
    const pages: [string, string, ((page: Page) => Promise<void>)?][] = [
      ['sign-in', '/app'],
      ['overview', '/app/overview', (page) => page.locator('.u-over').waitFor()],
      ['assistants', '/app/assistants'],
      ['assistant-new', '/app/assistants/new'],
      ['assistant', `/app/assistants/${ids.assistant}`, async (page) => {
        await page.getByRole('button', { name: 'Start a test chat' }).click();
        await page.getByLabel('Your message').fill('Do you have a table for two tonight?');
        await page.getByRole('button', { name: 'Send' }).click();
        await page.getByText('We do: seven or half past eight.').waitFor();
      }],
      ['calls', '/app/calls'],
      ['call', `/app/calls/${ids.call}`, async (page) => {
        // The transcript with its waterfalls is the picture; the summary above it is on the phone's next screen.
        await page.locator('.waterfall').first().waitFor();
        await page.locator('#call-transcript').evaluate((heading) => (heading as unknown as { scrollIntoView(): void }).scrollIntoView());
      }],
      ['campaigns', '/app/campaigns'],
      ['campaign', `/app/campaigns/${ids.campaign}`, (page) => page.locator('section[aria-labelledby="leads"] tbody tr').first().waitFor()],
      ['numbers', '/app/numbers'],
      ['knowledge', `/app/knowledge/${ids.knowledge}`],
      ['webhooks', '/app/webhooks'],
      ['keys', '/app/keys'],
      ['billing', '/app/billing'],
    ];
    for (const [size, viewport] of Object.entries(SIZES)) {
      const page = await browser.newPage({ viewport });
      for (const [name, route, prepare] of pages) {
        if (name === 'sign-in') await page.goto(`${platform.baseUrl}${route}`);
        else {
          if (name === 'overview') {
            await page.getByLabel('Email').fill(owner.email);
            await page.getByLabel('Password').fill(owner.password);
            await page.getByRole('button', { name: 'Sign in' }).click();
            await page.waitForURL('**/app/overview');
          } else await page.goto(`${platform.baseUrl}${route}`);
          await page.locator('main h1').waitFor();
          await expect.poll(() => page.locator('.loading').count()).toBe(0);
        }
        await prepare?.(page);
        await page.screenshot({ path: path.join(target!, `${name}-${size}.png`) });
      }
      await page.close();
    }
    await browser.close();
  }, 120_000);
});
