import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { WebSocket } from 'ws';
import { pause } from '../../lib/abort.ts';
import type { Logger } from '../../logger.ts';
import { Resampler } from '../../lib/audio/resampler.ts';
import { LINE_RATE, type Line } from './line.ts';

/** The page's audio: 16 kHz PCM16, little-endian, both ways (web-call.js's worklets capture and play it). */
export const PAGE_RATE = 16000;

/** How a ringing softphone answered: `busy` when its person declined (or was on another call). */
export type RingAnswer = 'answered' | 'busy' | 'no-answer' | 'canceled';

/** What the softphones need of the carrier. */
export interface SoftphoneCarrier {
  /** The page's person calls `to` from the number it claimed; the call's sid. */
  dial(page: SoftphonePage, to: string): string;
  /** Ends a call, as Parley's hang-up does: a ringing one is cancelled, an answered one hung up. */
  hangUp(sid: string): void;
  /** Whether a Parley user holds `phoneNumber`: such a number cannot be claimed. */
  owned(phoneNumber: string): Promise<boolean>;
}

/** A message from the page; anything else is answered with an error. */
type PageMessage =
  | { type: 'claim'; number: string }
  | { type: 'answer' | 'decline' | 'hangup' }
  | { type: 'dial'; to: string }
  | { type: 'dtmf'; digit: string };

/** The keys of a phone's keypad. */
const KEYPAD_KEY = /^[0-9*#]$/;
/** The page's audio goes out in 20 ms frames, as the line's. */
const PAGE_FRAME_SAMPLES = PAGE_RATE / 50;
const PAGE_FRAME_MS = 20;

interface PageCall {
  sid: string;
  /** `incoming`: ringing on the page; `outgoing`: the page's call not yet answered; `connected`: audio flows. */
  phase: 'incoming' | 'outgoing' | 'connected';
  /** Settles a ringing incoming call. */
  settle?: (answer: RingAnswer) => void;
}

/**
 * The softphone pages connected to the sandbox carrier (`/sandbox/phone`), and the numbers they claimed for as
 * long as their socket is open: one page per number, never a number a Parley user holds. The carrier asks
 * `holder(to)` before it picks a scripted callee, so a claimed number rings its page.
 */
export class Softphones {
  private readonly claims = new Map<string, SoftphonePage>();
  private readonly pages = new Set<SoftphonePage>();
  private readonly carrier: SoftphoneCarrier;
  private readonly logger: Logger;

  constructor(carrier: SoftphoneCarrier, logger: Logger) {
    this.carrier = carrier;
    this.logger = logger;
  }

  /** The connected page that claimed `phoneNumber`, if any. */
  holder(phoneNumber: string): SoftphonePage | undefined {
    return this.claims.get(phoneNumber);
  }

  /** Serves one page's socket until it closes; its claim and its call end with it. */
  connect(socket: WebSocket): void {
    const page = new SoftphonePage(socket, this.carrier, {
      claim: (page, number) => this.claim(page, number),
      release: (page) => {
        if (page.number && this.claims.get(page.number) === page) this.claims.delete(page.number);
      },
    });
    this.pages.add(page);
    socket.once('close', () => this.pages.delete(page));
    socket.on('error', (error) => this.logger.debug({ err: error }, 'a softphone socket failed'));
  }

  /** Closes every page (the process stops). */
  close(): void {
    for (const page of this.pages) page.close();
  }

  private async claim(page: SoftphonePage, input: string): Promise<string> {
    const parsed = parsePhoneNumberFromString(input);
    if (!parsed?.isValid()) throw new Error(`${input} is not a valid phone number in E.164 format (e.g. +14155550147).`);
    const number = parsed.number;
    const refusal = () => {
      const holder = this.claims.get(number);
      return holder && holder !== page ? `${number} is claimed by another softphone.` : undefined;
    };
    if (refusal()) throw new Error(refusal());
    if (await this.carrier.owned(number)) throw new Error(`${number} belongs to a Parley user: claim a number nobody holds.`);
    // Another page may have claimed it while the database answered.
    if (refusal()) throw new Error(refusal());
    if (page.number && this.claims.get(page.number) === page) this.claims.delete(page.number);
    this.claims.set(number, page);
    return number;
  }
}

/** What a page asks of its registry. */
interface Registry {
  claim(page: SoftphonePage, number: string): Promise<string>;
  release(page: SoftphonePage): void;
}

/**
 * One softphone page over its WebSocket. Text messages are JSON: the page sends `claim {number}`, `answer`,
 * `decline`, `dial {to}`, `dtmf {digit}` (a key of its keypad pressed during a call: 0-9, `*` or `#`, which
 * reaches Parley as Twilio's Media Streams `dtmf` message) and `hangup`; it is told `claimed {number}`, `incoming {sid, from}`, `calling {sid,
 * to}`, `connected {sid}`, `ended {sid, status}` (the carrier's final status) and `error {message}`. Binary
 * messages are the call's audio at 16 kHz PCM16 both ways, resampled here to the line's 8 kHz as a carrier's
 * edge would. A page has one call at a time, as a phone without call waiting: a second caller hears busy.
 */
export class SoftphonePage {
  /** The number this page claimed, once it has. */
  number: string | undefined;
  private call: PageCall | undefined;
  private readonly socket: WebSocket;
  private readonly carrier: SoftphoneCarrier;
  private readonly registry: Registry;
  private line: Line | undefined;
  private toLine: Resampler | undefined;

  constructor(socket: WebSocket, carrier: SoftphoneCarrier, registry: Registry) {
    this.socket = socket;
    this.carrier = carrier;
    this.registry = registry;
    socket.on('message', (data, isBinary) => {
      if (isBinary) this.hear(data as Buffer);
      else void this.receive((data as Buffer).toString('utf8'));
    });
    socket.once('close', () => {
      registry.release(this);
      if (this.call?.phase === 'incoming') this.call.settle?.('no-answer');
      else if (this.call) carrier.hangUp(this.call.sid);
    });
  }

  /**
   * Rings the page for an outbound call from `from`: resolves as its person answers or declines, after
   * `ringMs` without an answer, or when the caller gives up (`signal`).
   */
  ring(call: { sid: string; from: string }, ringMs: number, signal: AbortSignal): Promise<RingAnswer> {
    if (this.call || !this.open) return Promise.resolve(this.open ? 'busy' : 'no-answer');
    return new Promise((resolve) => {
      const settle = (answer: RingAnswer) => {
        clearTimeout(timer);
        signal.removeEventListener('abort', cancel);
        if (this.call?.sid === call.sid) {
          if (answer === 'answered') this.call = { sid: call.sid, phase: 'connected' };
          else delete this.call.settle;
        }
        resolve(answer);
      };
      const timer = setTimeout(() => settle('no-answer'), ringMs);
      const cancel = () => settle('canceled');
      signal.addEventListener('abort', cancel, { once: true });
      this.call = { sid: call.sid, phase: 'incoming', settle };
      this.send({ type: 'incoming', sid: call.sid, from: call.from });
    });
  }

  /**
   * Carries the call's audio between the page and the line until `signal` aborts: the page's microphone fed
   * to the line, and what the line plays (Parley's audio) to the page.
   */
  async bridge(sid: string, line: Line, signal: AbortSignal): Promise<void> {
    if (this.call?.sid !== sid || signal.aborted) return;
    this.call.phase = 'connected';
    this.line = line;
    this.toLine = new Resampler(PAGE_RATE, LINE_RATE);
    const toPage = new Resampler(LINE_RATE, PAGE_RATE);
    line.listen((frame) => {
      if (!this.open) return;
      const samples = toPage.process(frame);
      this.socket.send(Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength), { binary: true });
    });
    this.send({ type: 'connected', sid });
    await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
  }

  /**
   * Plays `speech` (8 kHz PCM16) to the page in real time, as the carrier speaks a `<Say>` to its caller; resolves
   * once it has all been sent, or when `signal` aborts. Nothing the page sends meanwhile goes anywhere.
   */
  async play(sid: string, speech: Int16Array, signal: AbortSignal): Promise<void> {
    if (this.call?.sid !== sid || signal.aborted) return;
    this.call.phase = 'connected';
    this.send({ type: 'connected', sid });
    const samples = new Resampler(LINE_RATE, PAGE_RATE).process(speech);
    const origin = performance.now();
    for (let frame = 0; frame * PAGE_FRAME_SAMPLES < samples.length; frame++) {
      if (!this.open || this.call?.sid !== sid) return;
      const part = samples.slice(frame * PAGE_FRAME_SAMPLES, (frame + 1) * PAGE_FRAME_SAMPLES);
      this.socket.send(Buffer.from(part.buffer), { binary: true });
      if (!await pause(Math.max(origin + (frame + 1) * PAGE_FRAME_MS - performance.now(), 0), signal)) return;
    }
  }

  /** The call `sid` is over with the carrier's final status. */
  ended(sid: string, status: string): void {
    if (this.call?.sid !== sid) return;
    this.call = undefined;
    this.line = undefined;
    this.toLine = undefined;
    this.send({ type: 'ended', sid, status });
  }

  /** Closes the page's socket, cut after a second if the page does not answer the closing handshake. */
  close(): void {
    this.socket.close(1001, 'The sandbox carrier is shutting down.');
    setTimeout(() => this.socket.terminate(), 1000).unref();
  }

  private get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  private send(message: Record<string, unknown>): void {
    if (this.open) this.socket.send(JSON.stringify(message));
  }

  private async receive(text: string): Promise<void> {
    let message: PageMessage;
    try {
      message = JSON.parse(text) as PageMessage;
    } catch {
      return this.send({ type: 'error', message: 'Messages are JSON objects with a `type`.' });
    }
    const call = this.call;
    switch (message?.type) {
      case 'claim':
        if (call) return this.send({ type: 'error', message: 'Hang up before claiming another number.' });
        try {
          this.number = await this.registry.claim(this, String(message.number ?? ''));
          return this.send({ type: 'claimed', number: this.number });
        } catch (error) {
          return this.send({ type: 'error', message: (error as Error).message });
        }
      case 'answer':
        return call?.phase === 'incoming' ? call.settle?.('answered') : undefined;
      case 'decline':
        return call?.phase === 'incoming' ? call.settle?.('busy') : undefined;
      case 'hangup':
        if (call?.phase === 'incoming') return call.settle?.('busy');
        return call ? this.carrier.hangUp(call.sid) : undefined;
      case 'dial':
        return this.dial(String(message.to ?? ''));
      case 'dtmf':
        return this.press(String(message.digit ?? ''));
      default:
        return this.send({ type: 'error', message: 'Unknown message type.' });
    }
  }

  private dial(to: string): void {
    if (!this.number) return this.send({ type: 'error', message: 'Claim a number before calling.' });
    if (this.call) return this.send({ type: 'error', message: 'You are already on a call.' });
    if (!/^\+[1-9]\d{6,14}$/.test(to)) return this.send({ type: 'error', message: `${to} is not a phone number in E.164 format (e.g. +14155550123).` });
    const sid = this.carrier.dial(this, to);
    this.call = { sid, phase: 'outgoing' };
    this.send({ type: 'calling', sid, to });
  }

  /** A key of the page's keypad: sent to Parley while the call is connected to it. */
  private press(digit: string): void {
    if (!KEYPAD_KEY.test(digit)) return this.send({ type: 'error', message: `${JSON.stringify(digit)} is not a key of a phone's keypad (0-9, * or #).` });
    if (this.call?.phase !== 'connected') return this.send({ type: 'error', message: 'Keys are sent during a call.' });
    // A call answered with a message (a number without an assistant) has no line to Parley: nobody hears keys.
    this.line?.press(digit);
  }

  /** The page's microphone: fed to the line while the call is connected. */
  private hear(data: Buffer): void {
    if (this.call?.phase !== 'connected' || !this.line || !this.toLine) return;
    const samples = new Int16Array(data.buffer.slice(data.byteOffset, data.byteOffset + (data.byteLength & ~1)));
    this.line.feed(this.toLine.process(samples));
  }
}
