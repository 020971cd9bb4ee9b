import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestAssistant } from '../support/assistants.ts';
import { launchChromium, screenshots } from '../support/browser.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { createTestUser, type TestUser } from '../support/users.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';


describe('the chat widget in a browser', () => {
  let llm: FakeLlmServer;
  let platform: TestPlatform;
  let browser: Browser;
  let owner: TestUser;
  let assistantUuid: string;
  let toolServer: LoopbackServer;

  beforeAll(async () => {
    toolServer = await listenOnLoopback(http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{"eta":"tomorrow"}')));
    const toolUrl = `${toolServer.url}/eta`;
    llm = await startFakeLlmServer({ chunkSize: 3 });
    platform = await startTestPlatform({ env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1' } });
    owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const tool = await platform.request('POST', '/user/tools', {
      token: owner.token,
      body: { name: 'delivery_eta', description: 'When the order arrives', endpoint: toolUrl, method: 'GET' },
    });
    assistantUuid = (await createTestAssistant(platform, owner, { initial_message: 'Hi! How can I help?', tool_ids: [tool.body.data.id] })).uuid;
    browser = await launchChromium();
    fs.mkdirSync(screenshots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await llm?.close();
    await toolServer?.close();
  });

  it('chats with streamed replies and tool activity, and keeps the conversation across a reload', async () => {
    const page = await browser.newPage({ viewport: { width: 1200, height: 800 } });
    const streamed: string[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/messages')) streamed.push(response.headers()['content-type'] ?? '');
    });
    await page.goto(`${platform.baseUrl}/widget/demo?assistant_id=${assistantUuid}`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.locator('.message.assistant').first().textContent()).toBe('Hi! How can I help?');

    llm.script({ toolCalls: [{ name: 'delivery_eta', arguments: {} }] }, { reply: 'Your order arrives tomorrow.' });
    await page.getByLabel('Your message').fill('When does my order arrive?');
    await page.getByLabel('Your message').press('Enter');
    await expect.poll(() => page.locator('.message.assistant').last().textContent()).toBe('Your order arrives tomorrow.');
    expect(await page.locator('.tool').first().textContent()).toBe('Used delivery eta');
    expect(await page.locator('.message.user').last().textContent()).toBe('When does my order arrive?');
    expect(streamed).toEqual([expect.stringContaining('text/event-stream')]);
    await page.screenshot({ path: path.join(screenshots, 'widget-chat.png') });

    await page.reload();
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.locator('.message').allTextContents()).toEqual([
      'Hi! How can I help?', 'When does my order arrive?', 'Your order arrives tomorrow.',
    ]);
    expect(await page.locator('.tool').count()).toBe(1);
    expect((await platform.request('GET', '/user/me', { token: owner.token })).body.total_balance).toBe(4.99);
    await page.close();
  });

  it('works from the keyboard and fills a phone-sized screen', async () => {
    const page = await browser.newPage({ viewport: { width: 375, height: 700 } });
    await page.goto(`${platform.baseUrl}/widget/demo?assistant_id=${assistantUuid}`);
    await page.getByRole('button', { name: 'Open chat' }).focus();
    await page.keyboard.press('Enter');
    const panel = page.getByRole('dialog');
    await expect.poll(() => panel.isVisible()).toBe(true);
    expect(await page.evaluate("document.querySelector('[data-parley-widget]').shadowRoot.activeElement.id")).toBe('parley-input');
    const box = await panel.boundingBox();
    expect(box?.width).toBe(375);
    await page.screenshot({ path: path.join(screenshots, 'widget-mobile.png') });
    await page.keyboard.press('Escape');
    await expect.poll(() => panel.isVisible()).toBe(false);
    await page.close();
  });

  it('says a person will answer while the AI is off, shows their answers as they come, and goes back to the assistant', async () => {
    const page = await browser.newPage();
    await page.goto(`${platform.baseUrl}/widget/demo?assistant_id=${assistantUuid}`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.locator('.message.assistant').first().textContent()).toBe('Hi! How can I help?');
    const uuid = await page.evaluate((key) => localStorage.getItem(key), `parley:conversation:${assistantUuid}`);
    expect((await platform.request('POST', `/automate/conversations/${uuid}/disable-ai`, { token: owner.token })).status).toBe(200);

    await page.getByLabel('Your message').fill('Can I talk to a person?');
    await page.getByLabel('Your message').press('Enter');
    await expect.poll(() => page.locator('.handover').textContent()).toBe('A person will answer here shortly.');
    const answer = await platform.request('POST', `/user/conversations/${uuid}/messages`, { token: owner.token, body: { message: 'Hi, Maria here. How can I help?' } });
    expect(answer.status).toBe(201);
    await expect.poll(() => page.locator('.message.assistant.human').textContent(), { timeout: 10_000 }).toBe('Hi, Maria here. How can I help?');
    await page.screenshot({ path: path.join(screenshots, 'widget-handover.png') });

    // A reload finds the conversation still with a person.
    await page.reload();
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.locator('.message').allTextContents()).toEqual(['Hi! How can I help?', 'Can I talk to a person?', 'Hi, Maria here. How can I help?']);
    expect(await page.locator('.handover').count()).toBe(1);

    await platform.request('POST', `/automate/conversations/${uuid}/enable-ai`, { token: owner.token });
    await expect.poll(() => page.locator('.handover').count(), { timeout: 10_000 }).toBe(0);
    llm.script({ reply: 'The assistant again: anything else?' });
    await page.getByLabel('Your message').fill('Thanks!');
    await page.getByLabel('Your message').press('Enter');
    await expect.poll(() => page.locator('.message.assistant').last().textContent()).toBe('The assistant again: anything else?');
    await page.close();
  });

  it('shows the documented errors in plain words', async () => {
    const broke = await createTestUser(platform.database.knex);
    const unpaid = await createTestAssistant(platform, broke);
    const page = await browser.newPage();
    await page.goto(`${platform.baseUrl}/widget/demo?assistant_id=${unpaid.uuid}`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.locator('.error').first().textContent()).toBe('This chat is unavailable right now. Please try again later.');
    await page.close();
  });
});
