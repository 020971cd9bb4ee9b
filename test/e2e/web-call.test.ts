import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NO_MODEL_MESSAGE } from '../../src/resources/conversations/service.ts';
import { startFakeLlmServer, type FakeLlmServer } from '../fakes/llm-server.ts';
import { startMediaPeer, type MediaPeer } from '../fakes/media-peer.ts';
import { createTestAssistant } from '../support/assistants.ts';
import { connectMediaStream, L16_16K } from '../support/media-stream-client.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { energyVad, toneStt, toneTts } from '../support/speech-doubles.ts';
import { createTestUser, type TestUser } from '../support/users.ts';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshots = path.resolve('test-results', 'screenshots');
const missingTools = ['espeak-ng', 'sox'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const title = missingTools.length === 0
  ? 'a web call from the widget in a browser'
  : `a web call from the widget in a browser (skipped: ${missingTools.join(' and ')} not installed; apt-get install espeak-ng sox)`;

/** A sine tone as 16 kHz PCM16, what the fake engine "says". */
function tone(seconds: number, hertz = 440, level = 0.3): Int16Array {
  const samples = new Int16Array(Math.round(seconds * 16000));
  for (let i = 0; i < samples.length; i += 1) samples[i] = Math.round(Math.sin((2 * Math.PI * hertz * i) / 16000) * level * 0x7fff);
  return samples;
}

function rms(samples: Int16Array): number {
  let sum = 0;
  for (const sample of samples) sum += sample * sample;
  return Math.sqrt(sum / samples.length);
}

/** The speech the fake microphone plays, on a loop: espeak-ng resampled by sox to 48 kHz mono PCM16. */
function speechWav(directory: string): string {
  const raw = path.join(directory, 'espeak.wav');
  const wav = path.join(directory, 'caller.wav');
  for (const [command, args] of [
    ['espeak-ng', ['-v', 'en-us', '-w', raw, 'Hello, I would like to book a table for two people tonight.']],
    ['sox', [raw, '-r', '48000', '-c', '1', '-b', '16', wav, 'pad', '0', '0.3']],
  ] as const) {
    const run = spawnSync(command, args);
    if (run.status !== 0) throw new Error(`${command} failed: ${run.stderr.toString()}`);
  }
  return wav;
}

describe.skipIf(missingTools.length > 0)(title, () => {
  /** The demo page's server, without a language model: its own web calls are refused with 503. */
  let platform: TestPlatform;
  /** A server with a model and a media gateway of one line, whose refusals the page meets for real. */
  let oneLine: TestPlatform;
  let oneLineOwner: TestUser;
  let llm: FakeLlmServer;
  let peer: MediaPeer;
  let browser: Browser;
  let assistantUuid: string;
  let scratch: string;

  beforeAll(async () => {
    scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-web-call-'));
    peer = await startMediaPeer();
    platform = await startTestPlatform();
    const owner = await createTestUser(platform.database.knex, { balanceUsd: 5 });
    assistantUuid = (await createTestAssistant(platform, owner, { initial_message: 'Hi! How can I help?' })).uuid;
    llm = await startFakeLlmServer();
    llm.respond(() => ({ toolCalls: [{ name: 'record_call_evaluation', arguments: { status: false, summary: 'A short call.' } }] }));
    const tts = toneTts();
    oneLine = await startTestPlatform({
      worker: true,
      media: true,
      env: { LLM_BASE_URL: llm.baseUrl, LLM_API_KEY: 'test', MEDIA_MAX_CALLS: '1' },
      // In-memory speech: these calls only need to be held, not understood.
      providers: { stt: toneStt({}), vad: energyVad(), tts: { forCode: () => tts, default: tts, codes: ['espeak'] } },
    });
    oneLineOwner = await createTestUser(oneLine.database.knex, { balanceUsd: 5 });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      args: [
        '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${speechWav(scratch)}`,
      ],
    });
    fs.mkdirSync(screenshots, { recursive: true });
  });
  afterAll(async () => {
    await browser?.close();
    await platform?.close();
    await oneLine?.close();
    await llm?.close();
    await peer?.close();
    if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
  });

  /** The demo page of the platform, its web-call requests answered by the fake engine, the panel open. */
  async function openDemo(): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1000, height: 760 } });
    await page.route('**/api/web-calls', async (route) => {
      const response = await route.fetch({ url: `${peer.url}/api/web-calls` });
      await route.fulfill({ response });
    });
    await page.goto(`${platform.baseUrl}/widget/demo?assistant_id=${assistantUuid}`);
    await page.getByRole('button', { name: 'Open chat' }).click();
    await expect.poll(() => page.locator('.message.assistant').first().textContent()).toBe('Hi! How can I help?');
    return page;
  }
  const callState = (page: Page) => page.getByRole('status').textContent();

  it('talks through the microphone, shows the live transcript, plays the reply, stops on clear and hangs up', async () => {
    const page = await openDemo();
    await page.getByRole('button', { name: 'Start a voice call' }).click();
    const session = await peer.nextSession();
    expect(peer.callRequests.at(-1)).toEqual({ assistant_id: assistantUuid, variables: {} });
    await expect.poll(() => callState(page)).toBe('Listening…');

    // The fake microphone plays speech on a loop: a second of it is far from silence.
    expect(rms(await session.nextFrames(50))).toBeGreaterThan(300);

    // Events the client does not know are ignored: the call goes on.
    session.sendJson({ event: 'metrics', streamSid: session.start.streamSid, metrics: { latency_ms: 420 } });
    session.sendTranscript('user', 'I would like to book', false);
    await expect.poll(() => page.locator('.message.user.partial').textContent()).toBe('I would like to book');
    session.sendTranscript('user', 'I would like to book a table.', true);
    session.sendTranscript('assistant', 'Sure, for how many people?', true);
    await expect.poll(() => page.locator('.message.voice:not(.partial)').allTextContents())
      .toEqual(['I would like to book a table.', 'Sure, for how many people?']);
    expect(await page.locator('.partial').count()).toBe(0);

    // One second of reply: its mark comes back when it has been played, not when it arrived.
    session.sendAudio(tone(1));
    session.sendMark('reply-1');
    const sent = performance.now();
    await expect.poll(() => callState(page)).toBe('Speaking…');
    await page.screenshot({ path: path.join(screenshots, 'web-call-speaking.png') });
    const played = await session.nextMark();
    expect(played.name).toBe('reply-1');
    expect(played.at - sent).toBeGreaterThan(900);
    expect(played.at - sent).toBeLessThan(1800);
    await expect.poll(() => callState(page)).toBe('Listening…');

    // Barge-in: three seconds queued, then clear; playback stops at once and the pending mark comes back.
    session.sendAudio(tone(3, 330));
    session.sendMark('reply-2');
    await expect.poll(() => callState(page)).toBe('Speaking…');
    const cleared = performance.now();
    session.sendClear();
    const dropped = await session.nextMark();
    expect(dropped.name).toBe('reply-2');
    expect(dropped.at - cleared).toBeLessThan(300);
    await expect.poll(() => callState(page), { timeout: 1000 }).toBe('Listening…');

    await page.getByRole('button', { name: 'Hang up' }).click();
    const stop = await session.stopped;
    expect(stop.stop.callSid).toBe(String(session.callId));
    await session.closed;
    await expect.poll(() => callState(page)).toBe('Call ended. You hung up.');
    expect(session.violations).toEqual([]);
    expect(session.start.start.mediaFormat).toEqual({ encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 });
    await expect.poll(() => page.getByRole('button', { name: 'Start a voice call' }).isVisible()).toBe(true);
    await page.screenshot({ path: path.join(screenshots, 'web-call-ended.png') });
    await page.close();
  });

  it('shows why the call ended when the assistant ends it', async () => {
    const page = await openDemo();
    await page.getByRole('button', { name: 'Start a voice call' }).click();
    const session = await peer.nextSession();
    await expect.poll(() => callState(page)).toBe('Listening…');
    session.end('The assistant ended the call.');
    await expect.poll(() => callState(page)).toBe('Call ended. The assistant ended the call.');
    expect(await page.getByRole('button', { name: 'Hang up' }).isVisible()).toBe(false);
    expect(session.violations).toEqual([]);
    await page.close();
  });

  /** Sends the page's web-call requests to the one-line server, for its assistant `uuid`. */
  async function callThroughOneLine(page: Page, uuid: string): Promise<void> {
    await page.unroute('**/api/web-calls');
    await page.route('**/api/web-calls', async (route) => {
      const response = await route.fetch({ url: `${oneLine.baseUrl}/api/web-calls`, postData: JSON.stringify({ assistant_id: uuid, variables: {} }) });
      await route.fulfill({ response });
    });
  }

  it('says in plain words why a call cannot start, from the servers\' own refusals', async () => {
    const page = await openDemo();
    const call = page.getByRole('button', { name: 'Start a voice call' });
    const lastError = () => page.locator('.error').last().textContent();

    // The page's own server has no language model: 503, and the widget shows the server's message.
    await page.unroute('**/api/web-calls');
    await call.click();
    await expect.poll(lastError).toBe(NO_MODEL_MESSAGE);
    await expect.poll(() => callState(page)).toBe('Call ended. The call could not start.');

    const poor = await createTestUser(oneLine.database.knex, { balanceUsd: 0 });
    await callThroughOneLine(page, (await createTestAssistant(oneLine, poor)).uuid);
    await call.click();
    await expect.poll(lastError).toBe('Calls are unavailable right now. Please try again later.');

    // The one line is taken: the call is created, and its media socket is closed with 1013.
    const assistant = await createTestAssistant(oneLine, oneLineOwner);
    const created = await oneLine.request('POST', '/user/web-calls', { token: oneLineOwner.token, body: { assistant_id: assistant.id } });
    const holder = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
    holder.start();
    await holder.waitFor(() => holder.received.some((message) => message.transcript?.role === 'assistant'), 10_000, 'the holder\'s greeting');
    await callThroughOneLine(page, assistant.uuid);
    await call.click();
    await expect.poll(lastError).toBe('All lines are busy. Please try again in a minute.');
    await expect.poll(() => callState(page)).toBe('Call ended. The call could not start.');
    expect(await page.getByRole('button', { name: 'Start a voice call' }).isVisible()).toBe(true);
    holder.stop();
    await holder.closed;

    const callRequests: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/api/web-calls') callRequests.push(request.url());
    });
    // The fake UI grants every request; this is what a visitor's refusal looks like to the page.
    await page.evaluate("navigator.mediaDevices.getUserMedia = () => Promise.reject(new DOMException('Permission denied', 'NotAllowedError'))");
    await call.click();
    await expect.poll(lastError).toBe('The microphone is blocked. Allow it for this site in your browser to call.');
    expect(callRequests).toEqual([]);
    await page.screenshot({ path: path.join(screenshots, 'web-call-errors.png') });
    await page.close();
  });
});
