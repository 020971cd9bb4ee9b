import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { launchChromium, screenshots, spokenWav } from '../support/browser.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { webCallTestbed } from '../support/web-call.ts';


/**
 * The whole path a visitor takes: the demo page's Call button, the browser's microphone (a WAV), the real
 * media gateway with the offline speech stack, the fake language model, and the reply in the live transcript.
 */
describe.skipIf(!speechInstalled)(`a live web call from the demo page${speechInstalled ? '' : ` (${speechSkipReason})`}`, () => {
  const bed = webCallTestbed((request) => (request.tool_choice
    ? { toolCalls: [{ name: 'record_call_evaluation', arguments: { status: true, summary: 'Booked.' } }] }
    : { reply: 'Sure, Tuesday at three works.' }));
  let browser: Browser;
  let assistantUuid: string;
  let scratch: string;

  // After the testbed's hooks: the platform is up before the browser starts, and closed after it.
  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-live-call-'));
    assistantUuid = (await createTestAssistant(bed.platform, bed.owner, { wait_for_customer: true })).uuid;
    browser = await launchChromium({ autoplay: true, microphone: spokenWav(scratch, 'I would like to book an appointment for Tuesday at three.', { before: 0.5, after: 12 }) });
    fs.mkdirSync(screenshots, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  it('hears the caller through the microphone and shows the assistant\'s spoken reply in the live transcript', async () => {
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    await page.goto(`${bed.platform.baseUrl}/widget/demo?assistant_id=${assistantUuid}`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await page.getByRole('button', { name: 'Start a voice call' }).click();

    const voiceLines = () => page.locator('.message.voice:not(.partial)').allTextContents();
    await expect.poll(voiceLines, { timeout: 30_000 }).toContainEqual(expect.stringMatching(/appointment/i));
    await expect.poll(voiceLines, { timeout: 30_000 }).toContain('Sure, Tuesday at three works.');
    await page.screenshot({ path: path.join(screenshots, 'web-call-live.png') });

    await page.getByRole('button', { name: 'Hang up' }).click();
    // The database may be shared with other test files: only this owner's calls.
    const calls = await bed.platform.database.knex('calls').where({ userId: bed.owner.id }).select('id', 'type');
    expect(calls).toHaveLength(1);
    const { result } = await bed.settled(calls[0].id);
    expect(result.status).toBe('ended_by_customer');
  }, 90_000);
});
