import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import WebSocket from 'ws';
import { decodeMulaw, encodeMulaw } from '../../lib/audio/mulaw.ts';

/** The carrier's audio: 8 kHz mu-law, 20 ms frames of 160 samples, as on the phone network. */
export const LINE_RATE = 8000;
const FRAME_SAMPLES = 160;
const FRAME_MS = 20;
/** A frame whose mean absolute sample is above this holds sound (speech, a beep), not line noise. */
const SOUND_LEVEL = 300;
/** Frames of audio Parley may send ahead of playback before the line stops reading them (60 s). */
const MAX_QUEUED_FRAMES = 3000;
/** Live audio fed to the line runs at most this many frames (200 ms) behind: a late burst drops its oldest. */
const MAX_LIVE_FRAMES = 10;

export interface LineOptions {
  /** The media gateway's Media Streams URL, and the `<Parameter>`s it was given. */
  url: string;
  parameters: Record<string, string>;
  accountSid: string;
  callSid: string;
}

/**
 * The callee's end of a phone call as the sandbox carrier carries it to Parley: a Media Streams connection
 * (`connected`, `start` with the parameters, `media` every 20 ms, `dtmf` per key pressed, `stop`), playing
 * Parley's audio in real time as a phone would: marks echoed once the audio before them has played, `clear`
 * dropping what is queued. It knows when the far end is speaking (sound in the frames played), which is all a
 * scripted callee listens for.
 */
export class Line {
  readonly streamSid = `MZ${randomBytes(16).toString('hex')}`;
  /** When the first frame holding sound was played, in ms since the epoch. */
  firstSoundAt: number | undefined;
  /** When the last frame holding sound was played. */
  lastSoundAt: number | undefined;
  /** How much sound has been played, in all (ms). */
  soundMs = 0;
  /** Resolves when the line is down, from either end. */
  readonly closed: Promise<void>;
  private readonly socket: WebSocket;
  private readonly options: LineOptions;
  private readonly playback: (Int16Array | string)[] = [];
  private readonly speech: Int16Array[] = [];
  private speechDone: (() => void)[] = [];
  /** Live audio short of a whole frame, until the next feed completes it. */
  private partial = new Int16Array(0);
  private listener: ((frame: Int16Array) => void) | undefined;
  private sequence = 0;
  private chunk = 0;
  private timer: NodeJS.Timeout | undefined;

  private constructor(socket: WebSocket, options: LineOptions) {
    this.socket = socket;
    this.options = options;
    this.closed = new Promise((resolve) => socket.once('close', () => {
      clearTimeout(this.timer);
      for (const done of this.speechDone.splice(0)) done();
      resolve();
    }));
    socket.on('message', (data) => this.receive(data as Buffer));
  }

  /** Connects to the media gateway and starts the stream; rejects when it cannot be reached. */
  static async open(options: LineOptions): Promise<Line> {
    const socket = new WebSocket(options.url);
    socket.on('error', () => undefined);
    await Promise.race([once(socket, 'open'), once(socket, 'close').then(() => Promise.reject(new Error(`the media gateway at ${options.url} closed the stream`)))]);
    const line = new Line(socket, options);
    line.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    line.send({
      event: 'start', sequenceNumber: String(++line.sequence), streamSid: line.streamSid,
      start: {
        streamSid: line.streamSid, accountSid: options.accountSid, callSid: options.callSid, tracks: ['inbound'],
        customParameters: options.parameters, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: LINE_RATE, channels: 1 },
      },
    });
    line.tick(performance.now(), 0);
    return line;
  }

  /** Whether the line is up. */
  get open(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Says 8 kHz PCM16 in real time; resolves when the last frame has been sent (or the line went down). */
  say(samples: Int16Array): Promise<void> {
    for (let offset = 0; offset < samples.length; offset += FRAME_SAMPLES) {
      const frame = new Int16Array(FRAME_SAMPLES);
      frame.set(samples.subarray(offset, offset + FRAME_SAMPLES));
      this.speech.push(frame);
    }
    if (!this.open) return Promise.resolve();
    return new Promise((resolve) => this.speechDone.push(resolve));
  }

  /**
   * Carries live 8 kHz PCM16 (a softphone's microphone) as it comes, in any chunk size, sent frame by frame
   * in real time; when the source runs ahead, the oldest frames are dropped rather than delaying the rest.
   */
  feed(samples: Int16Array): void {
    const joined = new Int16Array(this.partial.length + samples.length);
    joined.set(this.partial);
    joined.set(samples, this.partial.length);
    let offset = 0;
    for (; offset + FRAME_SAMPLES <= joined.length; offset += FRAME_SAMPLES) this.speech.push(joined.slice(offset, offset + FRAME_SAMPLES));
    this.partial = joined.slice(offset);
    if (this.speech.length > MAX_LIVE_FRAMES) this.speech.splice(0, this.speech.length - MAX_LIVE_FRAMES);
  }

  /**
   * A key pressed on this end's keypad, sent as Twilio reports a key it detected on the call: a `dtmf` message
   * for the inbound track. Sent when pressed, ahead of any audio still waiting to be sent.
   */
  press(digit: string): void {
    this.send({ event: 'dtmf', streamSid: this.streamSid, sequenceNumber: String(++this.sequence), dtmf: { track: 'inbound_track', digit } });
  }

  /** Hands every frame the line plays (Parley's audio as the phone hears it, silence included) to `listener`. */
  listen(listener: (frame: Int16Array) => void): void {
    this.listener = listener;
  }

  /** Hangs up: `stop`, then the socket closed. */
  hangUp(): void {
    if (!this.open) return;
    this.send({ event: 'stop', sequenceNumber: String(++this.sequence), streamSid: this.streamSid, stop: { accountSid: this.options.accountSid, callSid: this.options.callSid } });
    this.socket.close(1000);
  }

  private send(message: unknown): void {
    if (this.open) this.socket.send(JSON.stringify(message));
  }

  private receive(data: Buffer): void {
    let message: { event?: string; media?: { payload?: string }; mark?: { name?: string } };
    try {
      message = JSON.parse(data.toString('utf8')) as typeof message;
    } catch {
      return;
    }
    if (message.event === 'media' && typeof message.media?.payload === 'string') {
      if (this.playback.length >= MAX_QUEUED_FRAMES) return;
      const samples = decodeMulaw(Buffer.from(message.media.payload, 'base64'));
      for (let offset = 0; offset < samples.length; offset += FRAME_SAMPLES) this.playback.push(samples.subarray(offset, offset + FRAME_SAMPLES));
    } else if (message.event === 'mark' && typeof message.mark?.name === 'string') {
      this.playback.push(message.mark.name);
    } else if (message.event === 'clear') {
      for (const item of this.playback.splice(0)) if (typeof item === 'string') this.echo(item);
    }
  }

  private echo(name: string): void {
    this.send({ event: 'mark', sequenceNumber: String(++this.sequence), streamSid: this.streamSid, mark: { name } });
  }

  /** One 20 ms tick on a timeline from `origin`: a frame sent, a frame played. */
  private tick(origin: number, ticks: number): void {
    if (!this.open) return;
    const frame = this.speech.shift() ?? new Int16Array(FRAME_SAMPLES);
    this.chunk++;
    this.send({
      event: 'media', sequenceNumber: String(++this.sequence), streamSid: this.streamSid,
      media: { track: 'inbound', chunk: String(this.chunk), timestamp: String(this.chunk * FRAME_MS), payload: Buffer.from(encodeMulaw(frame)).toString('base64') },
    });
    if (this.speech.length === 0) for (const done of this.speechDone.splice(0)) done();

    while (typeof this.playback[0] === 'string') this.echo(this.playback.shift() as string);
    const played = this.playback.shift();
    this.listener?.(played instanceof Int16Array ? played : new Int16Array(FRAME_SAMPLES));
    if (played instanceof Int16Array && level(played) > SOUND_LEVEL) {
      this.soundMs += FRAME_MS;
      this.lastSoundAt = Date.now();
      this.firstSoundAt ??= this.lastSoundAt;
    }
    while (typeof this.playback[0] === 'string') this.echo(this.playback.shift() as string);
    this.timer = setTimeout(() => this.tick(origin, ticks + 1), Math.max(origin + (ticks + 1) * FRAME_MS - performance.now(), 0));
  }
}

function level(frame: Int16Array): number {
  let sum = 0;
  for (const sample of frame) sum += Math.abs(sample);
  return sum / frame.length;
}
