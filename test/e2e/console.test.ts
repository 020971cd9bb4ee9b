import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeLlmServer, startFakeLlmServer } from '../fakes/llm-server.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../fakes/webhook-receiver.ts';
import { launchChromium, screenshots } from '../support/browser.ts';
import { PERSON, personCalleeTurn } from '../support/phone-calls.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { speechInstalled, speechSkipReason } from '../support/speech.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

/** axe-core's checks (WCAG 2 A and AA), run in a page through the browser's protocol, as the page's policy allows no injected script. */
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A name and a chat reply that would run script if the console wrote them as HTML. */
const HOSTILE_NAME = '<img src=x onerror="window.pwned=1">Ada';
const HOSTILE_REPLY = 'Hi <b>there</b><script>window.pwned=2</script>';

/**
 * The console in a browser, on one platform (worker and media roles, the sandbox carrier, the fake model, a local
 * webhook receiver): each test is one user's scenario, through the pages only, and no page may throw.
 */
describe('the console in a browser', () => {
  let llm: FakeLlmServer;
  let receiver: WebhookReceiver;
  let platform: TestPlatform;
  let browser: Browser;
  let scratch: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-console-'));
    llm = await startFakeLlmServer({ chunkSize: 4 });
    // Ada (the chat) answers with markup; the caller meets the simulated person Sam.
    llm.respond((request) => (request.messages[0]?.content?.includes('You are Ada') ? { reply: HOSTILE_REPLY } : personCalleeTurn(request)));
    receiver = await startWebhookReceiver();
    platform = await startTestPlatform({
      // Without the speech stack no call is answered: the media role, which would carry it, is left out.
      worker: true, media: speechInstalled,
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', FETCH_ALLOW_HOSTS: '127.0.0.1', CAMPAIGN_RETRY_UNIT: 'second' },
    });
    browser = await launchChromium();
    fs.mkdirSync(screenshots, { recursive: true });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await receiver?.close();
    await llm?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** A fresh page that records uncaught errors; signed in as `user` when given (through the sign-in form). */
  async function open(user?: TestUser, viewport = { width: 1280, height: 800 }): Promise<Page> {
    const page = await browser.newPage({ viewport });
    page.on('pageerror', (error) => pageErrors.push(`${page.url()}: ${error.message}`));
    page.on('dialog', (dialog) => void dialog.accept());
    if (user) {
      await page.goto(`${platform.baseUrl}/app`);
      await expect.poll(() => page.locator('h1').textContent()).toBe('Sign in');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL('**/app/overview');
    }
    return page;
  }
  const heading = (page: Page) => page.locator('h1').textContent();

  /** What axe-core finds against WCAG 2 A and AA in the page as it is now, one line a rule broken. */
  async function accessibilityViolations(page: Page): Promise<string[]> {
    await page.evaluate(axeSource);
    const found = await page.evaluate<{ id: string; impact: string; targets: string[] }[]>(
      "axe.run(document, { runOnly: ['wcag2a', 'wcag2aa'] }).then((result) => result.violations.map(({ id, impact, nodes }) => ({ id, impact, targets: nodes.map((node) => node.target.join(' ')) })))");
    return found.map((violation) => `${violation.id} (${violation.impact}) at ${violation.targets.join(', ')}`);
  }

  /**
   * Adds the sandbox's test card on the billing page, then buys the first number offered in the US, whose price
   * and monthly renewal the page states before the purchase; the number bought.
   */
  async function buyNumber(page: Page): Promise<string> {
    await page.goto(`${platform.baseUrl}/app/billing`);
    await page.getByLabel('PaymentMethod id').fill('pm_card_visa');
    await page.getByRole('button', { name: 'Add card' }).click();
    await expect.poll(() => page.locator('table').first().textContent()).toContain('ending 4242');
    await page.getByRole('link', { name: 'Phone numbers' }).click();
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('button', { name: /^Buy \+1/ }).first().click();
    expect(await page.locator('#confirm-terms').textContent()).toMatch(/You pay \$\d+\.\d\d now .* and \$\d+\.\d\d every month .* until you release the number/);
    await page.getByRole('button', { name: /^Buy for/ }).click();
    await expect.poll(() => page.getByRole('status').first().textContent()).toMatch(/is yours/);
    return (await page.locator('section[aria-labelledby="owned"] tbody tr td').first().textContent())!;
  }
  const field = (page: Page, name: string) => page.locator(`form [name="${name}"]`).first();

  it('is served at /app with a strict Content-Security-Policy, and the root sends a browser there', async () => {
    const root = await fetch(`${platform.baseUrl}/`, { headers: { accept: 'text/html' }, redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/app');
    const app = await fetch(`${platform.baseUrl}/app/calls/1`);
    expect(app.status).toBe(200);
    const policy = app.headers.get('content-security-policy') ?? '';
    const scripts = policy.split(';').map((part) => part.trim()).find((part) => part.startsWith('script-src')) ?? '';
    expect(scripts).toMatch(/^script-src 'self'/);
    expect(policy).not.toContain('unsafe-inline');
    const html = await app.text();
    const script = /src="(\/app\/assets\/console-[^"]+\.js)"/.exec(html)?.[1];
    const asset = await fetch(`${platform.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
  });

  it('signs in, builds an assistant through its form (the 422 beside its field, then fixed), chats with it, and shows hostile text as text', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 5, name: 'Ada Owner' });
    const page = await open(owner);
    expect(await heading(page)).toBe('Overview');
    await page.getByRole('link', { name: 'Assistants' }).click();
    await page.getByRole('link', { name: 'New assistant' }).first().click();
    await expect.poll(() => heading(page)).toBe('New assistant');

    // Sent as it stands: the API's messages land beside the name and the prompt, tied to them for assistive technology.
    await page.getByRole('button', { name: 'Create assistant' }).click();
    const name = field(page, 'name');
    await expect.poll(() => name.getAttribute('aria-invalid')).toBe('true');
    const described = (await name.getAttribute('aria-describedby'))!.split(' ').at(-1)!;
    expect(await page.locator(`#${described}`).textContent()).toBe('The name field is required.');
    expect(await field(page, 'system_prompt').getAttribute('aria-invalid')).toBe('true');
    await page.screenshot({ path: path.join(screenshots, 'console-assistant-422.png') });

    await name.fill(HOSTILE_NAME);
    await field(page, 'system_prompt').fill('You are Ada. <script>window.pwned=3</script>');
    await page.getByRole('button', { name: 'Create assistant' }).click();
    await page.waitForURL(/\/app\/assistants\/\d+$/);
    await expect.poll(() => heading(page)).toBe(HOSTILE_NAME);
    expect(await field(page, 'system_prompt').inputValue()).toBe('You are Ada. <script>window.pwned=3</script>');

    // A test chat, streamed: the reply's markup is shown as text.
    await page.getByRole('button', { name: 'Start a test chat' }).click();
    await expect.poll(() => page.locator('.chat .msg.assistant .text').first().textContent()).toBe('Hello! How can I help you today?');
    await page.getByLabel('Your message').fill('Who are you?');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => page.locator('.chat .msg.assistant .text').last().textContent()).toBe(HOSTILE_REPLY);
    expect(await page.locator('.chat .msg.user .text').last().textContent()).toBe('Who are you?');
    expect(await page.evaluate('window.pwned')).toBeUndefined();
    expect(await page.locator('img[src="x"], .chat b').count()).toBe(0);
    expect(await accessibilityViolations(page)).toEqual([]);

    // The address is the page: a reload keeps the session (in the tab) and shows the same assistant.
    await page.reload();
    await expect.poll(() => heading(page)).toBe(HOSTILE_NAME);
    const list = `${platform.baseUrl}/app/assistants`;
    await page.goto(list);
    expect(await page.locator('table tbody tr td a').first().textContent()).toBe(HOSTILE_NAME);
    await page.close();
  });

  it.skipIf(!speechInstalled)(`buys a number, calls the person callee, and reads the call: transcript, recording, latency, webhook redelivered${speechInstalled ? '' : ` (${speechSkipReason})`}`, async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const page = await open(owner);

    const bought = await buyNumber(page);
    expect(bought).toMatch(/^\+1\d{10}$/);

    // An assistant that calls from it, records, and posts its post-call webhook to the receiver.
    await page.goto(`${platform.baseUrl}/app/assistants/new`);
    await field(page, 'name').fill('Caller');
    await field(page, 'system_prompt').fill('You call people about Parley.');
    await field(page, 'initial_message').fill('Hello, this is Parley calling.');
    await field(page, 'phone_number_id').selectOption({ label: `${bought} (Normal)` });
    await field(page, 'record').check();
    await field(page, 'is_webhook_active').check();
    await field(page, 'webhook_url').fill(receiver.url);
    await page.getByRole('button', { name: 'Create assistant' }).click();
    await page.waitForURL(/\/app\/assistants\/\d+$/);

    await page.getByLabel('Number to call').fill(PERSON);
    await page.getByRole('button', { name: 'Call', exact: true }).click();
    await page.getByRole('link', { name: /^Follow call \d+$/ }).click();
    await expect.poll(() => heading(page)).toMatch(/^Call \d+$/);
    // The page follows the live call, then shows what it was.
    await expect.poll(() => page.locator('.page-head .badge').textContent(), { timeout: 90_000, interval: 1000 }).toBe('ended_by_customer');
    await expect.poll(() => page.locator('.turn').count()).toBeGreaterThanOrEqual(4);
    expect(await page.locator('.turn.assistant .turn-text').first().textContent()).toBe('Hello, this is Parley calling.');
    const src = await page.locator('audio').getAttribute('src');
    expect(src).toMatch(/\/api\/recordings\/\d+\?/);
    expect((await fetch(src!)).headers.get('content-type')).toBe('audio/wav');
    // The waterfall of a reply, in figures too.
    const replies = page.locator('.turn.assistant .waterfall', { hasText: 'caller waited' });
    expect(await replies.count()).toBeGreaterThanOrEqual(1);
    expect(await replies.first().textContent()).toMatch(/caller waited\d+ ms.*model first token\d+ ms/);
    await expect.poll(() => page.locator('.deliveries .badge').first().textContent(), { timeout: 30_000, interval: 1000 }).toBe('delivered');
    await page.screenshot({ path: path.join(screenshots, 'console-call.png'), fullPage: true });
    expect(await accessibilityViolations(page)).toEqual([]);

    // Redelivered from the page: a new delivery of the same event arrives.
    const before = receiver.received.length;
    await page.getByRole('button', { name: /^Redeliver delivery \d+$/ }).first().click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Webhook redelivery queued' }).count()).toBe(1);
    await expect.poll(() => receiver.received.length, { timeout: 20_000 }).toBe(before + 1);
    expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ customer_phone: PERSON, status: 'ended_by_customer' });

    // The calls list shows the client's number, and filters by it.
    const listRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/user/calls') listRequests.push(request.url());
    });
    await page.goto(`${platform.baseUrl}/app/calls?phone_number=${encodeURIComponent(PERSON)}`);
    await expect.poll(() => page.locator('table.calls tbody tr').count()).toBe(1);
    expect(await page.locator('table.calls tbody tr td').nth(2).textContent()).toBe(PERSON);
    // Asked once, by the page's early script as it loaded: the bundle took that answer instead of asking again.
    expect(listRequests).toHaveLength(1);
    await page.close();
  }, 180_000);

  it('creates a campaign, imports leads from a CSV with progress, starts it and watches its progress change', async () => {
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    const page = await open(owner);
    const bought = await buyNumber(page);
    await page.goto(`${platform.baseUrl}/app/assistants/new`);
    await field(page, 'name').fill('Dialer');
    await field(page, 'system_prompt').fill('You call people.');
    await field(page, 'phone_number_id').selectOption({ label: `${bought} (Normal)` });
    await page.getByRole('button', { name: 'Create assistant' }).click();
    await page.waitForURL(/\/app\/assistants\/\d+$/);

    await page.goto(`${platform.baseUrl}/app/campaigns`);
    await field(page, 'name').fill('Autumn');
    await field(page, 'assistant_id').selectOption({ label: 'Dialer' });
    await field(page, 'timezone').fill('UTC');
    await field(page, 'retry_interval').fill('10');
    await field(page, 'max_retries').fill('1');
    await page.getByRole('button', { name: 'Create campaign' }).click();
    await page.waitForURL(/\/app\/campaigns\/\d+$/);
    await expect.poll(() => heading(page)).toBe('Autumn');

    // Busy lines (numbers ending 80 to 84): each lead is dialled, then waits for its retry.
    const csv = path.join(scratch, 'leads.csv');
    fs.writeFileSync(csv, 'phone_number,customer_name\n+14155550181,Ann\n+14155550182,Bo\nnot a number,Cy\n');
    await page.getByLabel('CSV file').setInputFiles(csv);
    await page.getByRole('button', { name: 'Import' }).click();
    await expect.poll(() => page.locator('section[aria-labelledby="import"]').textContent()).toContain('3 rows read: 2 created, 0 already in the campaign, 1 invalid.');
    expect(await page.locator('#import-progress').getAttribute('value')).toBe('1');
    await expect.poll(() => page.locator('dd[data-status="created"]').textContent()).toBe('2');
    await expect.poll(() => page.locator('section[aria-labelledby="leads"] tbody tr').count()).toBe(2);

    await page.getByRole('button', { name: 'Start' }).click();
    await expect.poll(() => page.locator('.page-head .badge').textContent()).toBe('in-progress');
    // The page refreshes itself: the leads leave `created` as they are dialled.
    await expect.poll(() => page.locator('dd[data-status="created"]').textContent(), { timeout: 30_000, interval: 500 }).toBe('0');
    await page.screenshot({ path: path.join(screenshots, 'console-campaign.png'), fullPage: true });
    await page.getByRole('button', { name: 'Stop' }).click();
    await expect.poll(() => page.locator('.page-head .badge').textContent()).toBe('stopped');
    await page.close();
  }, 90_000);

  it('shows a new API key once, opens every page at a phone width (one h1, no WCAG A/AA violation), signs out, and no page threw', async () => {
    // A white-label admin, who also sees the users of their platform.
    const owner = await createTestUser(platform.database.knex);
    await platform.database.knex('users').where({ id: owner.id }).update({ white_label_admin: true });
    const registered = await platform.request('POST', '/white-label/register', { token: owner.token, body: { name: 'Grace Client', email: `grace-${owner.id}@example.test`, password: 'correct horse battery' } });
    expect(registered.status, registered.text).toBe(200);
    const page = await open(owner, { width: 390, height: 844 });
    await page.goto(`${platform.baseUrl}/app/keys`);
    await field(page, 'name').fill('CRM');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = await page.getByTestId('new-token').textContent();
    expect((await platform.request('GET', '/user/me', { token: token! })).status).toBe(200);
    await page.reload();
    expect(await page.getByTestId('new-token').count()).toBe(0);
    expect(await page.locator('table tbody tr td:first-child').allTextContents()).toContain('CRM');

    // The menu opens from its button at this width, and the keyboard reaches the navigation.
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('link', { name: 'Calls' }).click();
    await expect.poll(() => heading(page)).toBe('Calls');
    const violations: string[] = [];
    for (const slug of ['overview', 'assistants', 'assistants/new', 'calls', 'campaigns', 'numbers', 'knowledge', 'webhooks', 'keys', 'billing', 'users', 'no-such-page']) {
      await page.goto(`${platform.baseUrl}/app/${slug}`);
      await expect.poll(() => page.locator('h1').count(), { message: slug }).toBe(1);
      await expect.poll(() => page.locator('.loading').count(), { message: slug }).toBe(0);
      const width = await page.evaluate<number>('document.documentElement.scrollWidth');
      expect(width, `${slug} fits the phone's width`).toBeLessThanOrEqual(390);
      violations.push(...(await accessibilityViolations(page)).map((violation) => `${slug}: ${violation}`));
    }
    expect(violations).toEqual([]);
    await page.goto(`${platform.baseUrl}/app/users`);
    await expect.poll(() => page.locator('table tbody tr td').first().textContent()).toBe('Grace Client');

    await page.getByRole('button', { name: 'Menu' }).click();
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(1);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect.poll(() => heading(page)).toBe('Sign in');
    expect((await platform.request('GET', '/user/me', { token: token! })).status).toBe(200);
    await page.reload();
    await expect.poll(() => heading(page)).toBe('Sign in');
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
