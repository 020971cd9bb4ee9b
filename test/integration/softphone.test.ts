import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { drawNumbers } from '../../src/providers/telephony/sandbox-inventory.ts';
import type { SandboxCarrier } from '../../src/simulators/sandbox-carrier/carrier.ts';
import { PAGE_RATE } from '../../src/simulators/sandbox-carrier/softphones.ts';
import { CalleeVoice } from '../../src/simulators/sandbox-carrier/voice.ts';
import { NOT_IN_SERVICE } from '../../src/resources/carrier-callbacks/inbound.ts';
import { decodeMulaw, encodeMulaw } from '../../src/lib/audio/mulaw.ts';
import { parseInboundMessage } from '../../src/voice/serializers/twilio.ts';
import { listenOnLoopback, type LoopbackServer } from '../support/ports.ts';
import { startTestPlatform, type TestPlatform } from '../support/platform.ts';
import { level, Page } from '../support/softphone.ts';
import { createTestUser } from '../support/users.ts';

/** A Media Streams message the carrier sent Parley. */
type StreamEvent = { event: string; sequenceNumber?: string; streamSid?: string; media?: { payload: string }; start?: { streamSid: string; callSid: string } };

/** Parley's side of calls as the test plays it: the status callbacks it is sent, and the Media Streams it is offered. */
class ParleyStandIn {
  readonly callbacks: Record<string, string>[] = [];
  readonly streams: { socket: WebSocket; events: StreamEvent[] }[] = [];
  private web!: LoopbackServer;
  private media!: LoopbackServer;
  private readonly sockets = new WebSocketServer({ noServer: true });

  async start(): Promise<void> {
    this.web = await listenOnLoopback(http.createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      request.on('end', () => {
        this.callbacks.push(Object.fromEntries(new URLSearchParams(body)));
        response.writeHead(204).end();
      });
    }));
    const media = http.createServer();
    media.on('upgrade', (request, socket, head) => this.sockets.handleUpgrade(request, socket, head, (stream) => {
      const entry = { socket: stream, events: [] as StreamEvent[] };
      stream.on('message', (data: Buffer) => entry.events.push(JSON.parse(data.toString('utf8')) as StreamEvent));
      this.streams.push(entry);
    }));
    this.media = await listenOnLoopback(media);
  }

  /** What a dial asks of the carrier: calls `to`, reporting here and streaming here once answered. */
  request(to: string, ringTimeoutSeconds = 30) {
    return { from: drawNumbers('US', '', 1)[0]!.phoneNumber, to, ringTimeoutSeconds, statusCallbackUrl: `${this.web.url}/status`, stream: { url: `${this.media.url.replace('http', 'ws')}/stream`, parameters: {} } };
  }

  /** The stream the carrier opened for the call `sid`, once it has started. */
  async streamOf(sid: string) {
    await expect.poll(() => this.streams.some((stream) => stream.events.some((event) => event.start?.callSid === sid))).toBe(true);
    return this.streams.find((stream) => stream.events.some((event) => event.start?.callSid === sid))!;
  }

  statusesOf(sid: string): string[] {
    return this.callbacks.filter((form) => form.CallSid === sid).map((form) => form.CallStatus!);
  }

  async close(): Promise<void> {
    for (const { socket } of this.streams) socket.terminate();
    await Promise.all([this.web.close(), this.media.close()]);
  }
}

/** `ms` of a 440 Hz tone at `rate`. */
const tone = (rate: number, ms: number) => Int16Array.from({ length: (rate * ms) / 1000 }, (_, i) => Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / rate)));

/**
 * The sandbox carrier's softphone: pages claim numbers over their socket, a claimed number rings its page
 * instead of a scripted callee, and the page's audio is carried to and from Parley's media stream as a carrier
 * carries a phone's. Parley's side is played by the test here (status callbacks and a Media Streams server);
 * test/e2e/softphone.test.ts runs the whole path with a browser and the voice engine.
 */
describe('the sandbox softphone', () => {
  let platform: TestPlatform;
  let carrier: SandboxCarrier;
  const parley = new ParleyStandIn();
  const pages: Page[] = [];

  beforeAll(async () => {
    platform = await startTestPlatform();
    carrier = platform.sandboxCarrier!;
    await parley.start();
  });
  afterEach(() => {
    for (const page of pages.splice(0)) page.socket.close();
  });
  afterAll(async () => {
    await parley?.close();
    await platform?.close();
  });

  async function openPage(): Promise<Page> {
    const socket = new WebSocket(`${platform.baseUrl.replace('http', 'ws')}/sandbox/phone/socket`);
    const page = new Page(socket);
    await once(socket, 'open');
    pages.push(page);
    return page;
  }

  /** A page that claimed a number of its own. */
  async function claimedPage(): Promise<{ page: Page; number: string }> {
    const page = await openPage();
    const number = drawNumbers('US', '', 1)[0]!.phoneNumber;
    expect(await page.claim(number)).toEqual({ type: 'claimed', number });
    return { page, number };
  }

  it('serves the page and its script', async () => {
    const page = await fetch(`${platform.baseUrl}/sandbox/phone`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<script src="/sandbox/phone.js">');
    expect((await fetch(`${platform.baseUrl}/sandbox/phone.js`)).status).toBe(200);
  });

  it('claims a valid number nobody holds for one page at a time, and never a number a Parley user holds', async () => {
    const [first, second] = [await openPage(), await openPage()];
    expect(await first.claim('555')).toMatchObject({ type: 'error', message: expect.stringContaining('not a valid phone number') });
    const [free, bought, provisioned] = drawNumbers('US', '', 3).map((offer) => offer.phoneNumber);
    expect(await first.claim(free!)).toEqual({ type: 'claimed', number: free });
    expect(await second.claim(free!)).toMatchObject({ type: 'error', message: `${free} is claimed by another softphone.` });

    const owner = await createTestUser(platform.database.knex);
    await platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber: bought, countryCode: 'US', type: 'caller_id', status: 'active' });
    await platform.database.knex('sandbox_phone_numbers').insert({ id: `PNsbx${randomUUID().replace(/-/g, '')}`, phoneNumber: provisioned, idempotencyKey: randomUUID() });
    for (const held of [bought, provisioned]) {
      expect(await second.claim(held!)).toMatchObject({ type: 'error', message: expect.stringContaining('belongs to a Parley user') });
    }

    // The claim lasts as long as its page's socket.
    first.socket.close();
    await once(first.socket, 'close');
    await expect.poll(() => carrier.softphones.holder(free!)).toBeUndefined();
    expect(await second.claim(free!)).toEqual({ type: 'claimed', number: free });
  });

  it('rings the page of a claimed number instead of a scripted callee; declining is busy', async () => {
    const { page, number } = await claimedPage();
    const request = parley.request(number);
    const sid = carrier.place(request);
    expect(await page.next('incoming')).toEqual({ type: 'incoming', sid, from: request.from });
    expect(carrier.get(sid)).toMatchObject({ callee: 'softphone', status: 'ringing' });
    page.send({ type: 'decline' });
    expect(await page.next('ended')).toEqual({ type: 'ended', sid, status: 'busy' });
    await expect.poll(() => parley.statusesOf(sid)).toEqual(['initiated', 'ringing', 'busy']);
  });

  it('reports no-answer when the page does not answer within the ring timeout', async () => {
    const { page, number } = await claimedPage();
    const sid = carrier.place(parley.request(number, 1));
    await page.next('incoming');
    expect(await page.next('ended')).toEqual({ type: 'ended', sid, status: 'no-answer' });
    await expect.poll(() => parley.statusesOf(sid)).toEqual(['initiated', 'ringing', 'no-answer']);
  });

  it('carries audio both ways once answered, at 8 kHz mu-law on the stream and 16 kHz PCM on the page; the page hangs up: completed', async () => {
    const { page, number } = await claimedPage();
    const sid = carrier.place(parley.request(number));
    await page.next('incoming');
    page.send({ type: 'answer' });
    expect(await page.next('connected')).toEqual({ type: 'connected', sid });
    await expect.poll(() => parley.statusesOf(sid)).toContain('in-progress');
    const stream = parley.streams.at(-1)!;
    await expect.poll(() => stream.events.map((event) => event.event).slice(0, 2)).toEqual(['connected', 'start']);

    // Parley speaks: the page hears it, upsampled.
    const heardBefore = page.audio.length;
    stream.socket.send(JSON.stringify({ event: 'media', streamSid: 'MZ1', media: { payload: Buffer.from(encodeMulaw(tone(8000, 400))).toString('base64') } }));
    await expect.poll(() => level(page.audio.slice(heardBefore)), { timeout: 3000 }).toBeGreaterThan(1000);
    expect(page.audio.at(-1)).toHaveLength(320);

    // The page speaks: Parley hears it, downsampled and encoded as a carrier's.
    const sentBefore = stream.events.length;
    const spoken = tone(16000, 400);
    for (let offset = 0; offset < spoken.length; offset += 320) page.socket.send(Buffer.from(spoken.slice(offset, offset + 320).buffer));
    const heardByParley = () => stream.events.slice(sentBefore).filter((event) => event.event === 'media').map((event) => decodeMulaw(Buffer.from(event.media!.payload, 'base64')));
    await expect.poll(() => level(heardByParley()), { timeout: 3000 }).toBeGreaterThan(1000);

    page.send({ type: 'hangup' });
    expect(await page.next('ended')).toEqual({ type: 'ended', sid, status: 'completed' });
    await expect.poll(() => stream.events.at(-1)?.event).toBe('stop');
    await expect.poll(() => parley.statusesOf(sid)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
  });

  it('sends a key pressed during a call to Parley as Twilio\'s Media Streams `dtmf` message; only a keypad\'s keys, only in a call', async () => {
    const { page, number } = await claimedPage();
    page.send({ type: 'dtmf', digit: '5' });
    expect(await page.next('error')).toEqual({ type: 'error', message: 'Keys are sent during a call.' });
    const sid = carrier.place(parley.request(number));
    await page.next('incoming');
    page.send({ type: 'answer' });
    await page.next('connected');
    const stream = await parley.streamOf(sid);
    for (const digit of ['A', '12', '']) {
      page.send({ type: 'dtmf', digit });
      expect(await page.next('error')).toEqual({ type: 'error', message: `${JSON.stringify(digit)} is not a key of a phone's keypad (0-9, * or #).` });
    }
    for (const digit of '90*#') page.send({ type: 'dtmf', digit });
    await expect.poll(() => stream.events.filter((event) => event.event === 'dtmf')).toHaveLength(4);

    // Each as Twilio sends it, and as Parley's media gateway reads it.
    const { streamSid } = stream.events.find((event) => event.event === 'start')!.start!;
    const keys = stream.events.filter((event) => event.event === 'dtmf');
    expect(keys).toEqual([...'90*#'].map((digit) => ({ event: 'dtmf', streamSid, sequenceNumber: expect.stringMatching(/^\d+$/), dtmf: { track: 'inbound_track', digit } })));
    expect(keys.map((key) => parseInboundMessage(JSON.stringify(key)))).toEqual(keys);
    // Numbered in the stream's one sequence, with its media messages.
    const sequence = stream.events.slice(1).map((event) => Number(event.sequenceNumber));
    expect(sequence).toEqual(sequence.map((_, index) => sequence[0]! + index));

    page.send({ type: 'hangup' });
    expect(await page.next('ended')).toEqual({ type: 'ended', sid, status: 'completed' });
  });

  it('speaks the message of an owned number without an assistant to the page that rings it, then hangs up', async () => {
    const { page } = await claimedPage();
    const owner = await createTestUser(platform.database.knex);
    const [unassigned] = drawNumbers('US', '', 1).map((offer) => offer.phoneNumber);
    await platform.database.knex('phone_numbers').insert({ userId: owner.id, phoneNumber: unassigned, countryCode: 'US', type: 'normal', status: 'active' });
    const message = await new CalleeVoice().speak(NOT_IN_SERVICE);
    const messageMs = (message.length / 8000) * 1000;

    page.send({ type: 'dial', to: unassigned });
    const { sid } = await page.next('calling');
    expect(await page.next('connected', 'ended')).toEqual({ type: 'connected', sid });
    const connectedAt = performance.now();
    expect(await page.next('ended')).toEqual({ type: 'ended', sid, status: 'completed' });
    // The whole message at the page's rate, in real time rather than a burst (a stalled event loop may shorten
    // what the test measures), then the hang-up.
    expect(performance.now() - connectedAt).toBeGreaterThan(messageMs * 0.75);
    const heard = page.audio.reduce((total, frame) => total + frame.length, 0);
    expect(Math.abs(heard - (message.length * PAGE_RATE) / 8000)).toBeLessThan(PAGE_RATE / 50);
    expect(level(page.audio)).toBeGreaterThan(300);
    expect(carrier.get(sid as string)).toMatchObject({ direction: 'inbound', callee: 'softphone', status: 'completed', answeredAt: expect.any(Number) });

    // Hanging up during the message ends the call there.
    page.send({ type: 'dial', to: unassigned });
    const again = await page.next('calling');
    await page.next('connected');
    page.send({ type: 'hangup' });
    expect(await page.next('ended')).toEqual({ type: 'ended', sid: again.sid, status: 'completed' });
    expect(carrier.get(again.sid as string)!.endedAt! - carrier.get(again.sid as string)!.answeredAt!).toBeLessThan(messageMs / 2);
  }, 20_000);

  it('ends the page\'s call when Parley hangs up, and holds a page to one call at a time', async () => {
    const { page, number } = await claimedPage();
    const sid = carrier.place(parley.request(number));
    await page.next('incoming');
    // A second caller while the first rings: busy, and the page keeps ringing for the first.
    const second = carrier.place(parley.request(number));
    await expect.poll(() => parley.statusesOf(second)).toEqual(['initiated', 'ringing', 'busy']);
    page.send({ type: 'answer' });
    await page.next('connected');
    await expect.poll(() => parley.streams.some((stream) => stream.events.some((event) => event.event === 'start' && JSON.stringify(event).includes(sid)))).toBe(true);
    const stream = parley.streams.find((candidate) => candidate.events.some((event) => JSON.stringify(event).includes(sid)))!;
    stream.socket.close(1000);
    expect(await page.next('ended')).toEqual({ type: 'ended', sid, status: 'completed' });
    await expect.poll(() => parley.statusesOf(sid)).toEqual(['initiated', 'ringing', 'in-progress', 'completed']);
  });

  it('dials from the page only once it claimed a number, and only E.164; a number Parley does not hold is busy', async () => {
    const page = await openPage();
    page.send({ type: 'dial', to: '+14155550123' });
    expect(await page.next('error')).toMatchObject({ message: 'Claim a number before calling.' });
    const number = drawNumbers('US', '', 1)[0]!.phoneNumber;
    await page.claim(number);
    page.send({ type: 'dial', to: '0800 123' });
    expect(await page.next('error')).toMatchObject({ message: expect.stringContaining('E.164') });

    const nobodys = drawNumbers('US', '', 1)[0]!.phoneNumber;
    page.send({ type: 'dial', to: nobodys });
    const calling = await page.next('calling');
    expect(calling).toEqual({ type: 'calling', sid: expect.stringMatching(/^CA/), to: nobodys });
    expect(await page.next('ended')).toEqual({ type: 'ended', sid: calling.sid, status: 'busy' });
    expect(carrier.get(calling.sid as string)).toMatchObject({ direction: 'inbound', callee: 'softphone', request: { from: number, to: nobodys } });
  });
});


describe('the softphone on another carrier', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startTestPlatform({ env: { TELEPHONY_PROVIDER: 'twilio', TWILIO_ACCOUNT_SID: `AC${'0'.repeat(32)}`, TWILIO_AUTH_TOKEN: 'token' } });
  });
  afterAll(async () => {
    await platform?.close();
  });

  it('is not there: the page, its script and its socket are 404', async () => {
    expect(platform.sandboxCarrier).toBeUndefined();
    expect((await fetch(`${platform.baseUrl}/sandbox/phone`)).status).toBe(404);
    expect((await fetch(`${platform.baseUrl}/sandbox/phone.js`)).status).toBe(404);
    const socket = new WebSocket(`${platform.baseUrl.replace('http', 'ws')}/sandbox/phone/socket`);
    socket.on('error', () => undefined);
    const [, response] = await once(socket, 'unexpected-response') as [unknown, http.IncomingMessage];
    expect(response.statusCode).toBe(404);
    socket.terminate();
  });
});
