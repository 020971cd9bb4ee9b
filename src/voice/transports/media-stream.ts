/**
 * One media WebSocket speaking the Twilio Media Streams protocol (serializers/twilio.ts): it waits for
 * `start`, then hands the engine caller audio as PCM16 at the internal rate and sends the engine's audio back
 * in the format `start` announced. Codecs and resampling happen here, once each way. A message outside the
 * protocol closes the socket with the close code of its error (close-codes.ts); an event the protocol does
 * not have is ignored.
 */
import type { WebSocket } from 'ws';
import { BadRequestError } from '../../lib/errors.ts';
import type { Logger } from '../../logger.ts';
import { INTERNAL_SAMPLE_RATE } from '../audio/frames.ts';
import { closeFrameFor } from '../close-codes.ts';
import { MediaStreamAudio } from '../serializers/media-audio.ts';
import {
  clearMessage, markMessage, MediaStreamMessageError, mediaMessage, parseInboundMessage, type InboundMessage, type StartMessage, transcriptMessage,
} from '../serializers/twilio.ts';

export type StreamStart = StartMessage['start'];

/** What the engine hears from the far side after `start`. */
export interface MediaStreamHandlers {
  /** A frame of caller audio; `held` when it came before `listen` and is handed over late. */
  audio(frame: Int16Array, held: boolean): void;
  /** A mark the engine sent came back: the audio before it played (or was cleared). */
  mark(name: string): void;
  dtmf(digit: string): void;
  /** The far side ended the stream (`stop`) or the socket closed; `failed` when it broke the protocol. */
  ended(failed: boolean): void;
}

/** How long a new socket may take to send `start`. */
const START_TIMEOUT_MS = 10_000;
/**
 * The most caller audio kept between `start` and `listen`, while the engine loads the call: the caller may
 * speak at once (a callee's "Hello?"), and loading waits for the call's time limit for up to 3 s.
 */
const EARLY_AUDIO_SAMPLES = 5 * INTERNAL_SAMPLE_RATE;
/**
 * How long the far side gets to answer the closing handshake before its socket is cut: a peer that never answers
 * would otherwise hold the socket for `ws`'s 30 s.
 */
const CLOSE_HANDSHAKE_MS = 1000;

export class MediaStreamTransport {
  private readonly socket: WebSocket;
  private readonly logger: Logger;
  private audio: MediaStreamAudio | undefined;
  private streamSid: string | undefined;
  private handlers: MediaStreamHandlers | undefined;
  /** Caller audio that arrived before anyone listened, oldest first. */
  private early: Int16Array[] = [];
  private earlySamples = 0;
  private ended = false;
  private failed = false;
  private resolveStart: ((start: StreamStart) => void) | undefined;
  private rejectStart: ((error: Error) => void) | undefined;
  /** Resolves with the stream's start; rejects when the socket fails or closes first. */
  readonly started: Promise<StreamStart>;

  constructor(socket: WebSocket, logger: Logger, options: { startTimeoutMs?: number } = {}) {
    this.socket = socket;
    this.logger = logger;
    this.started = new Promise((resolve, reject) => {
      this.resolveStart = resolve;
      this.rejectStart = reject;
    });
    // The caller may never await a stream that failed before it asked.
    this.started.catch(() => undefined);
    const timer = setTimeout(() => this.fail(new BadRequestError('No start message arrived.')), options.startTimeoutMs ?? START_TIMEOUT_MS);
    void this.started.finally(() => clearTimeout(timer)).catch(() => undefined);
    socket.on('message', (data, isBinary) => this.receive(data as Buffer, isBinary));
    socket.once('close', () => {
      clearTimeout(timer);
      this.rejectStart?.(new Error('The media stream closed before it started.'));
      this.end();
    });
  }

  get open(): boolean {
    return this.socket.readyState === this.socket.OPEN;
  }

  /** Who hears the stream from now on; the caller audio that came before is handed over first. */
  listen(handlers: MediaStreamHandlers): void {
    this.handlers = handlers;
    const early = this.early;
    this.early = [];
    this.earlySamples = 0;
    for (const frame of early) handlers.audio(frame, true);
    if (this.ended) handlers.ended(this.failed);
  }

  /** One frame of engine audio (PCM16, internal rate) to play. */
  sendFrame(frame: Int16Array): void {
    if (!this.audio || !this.streamSid || !this.open) return;
    for (const payload of this.audio.encode(frame)) this.socket.send(mediaMessage(this.streamSid, payload));
  }

  sendMark(name: string): void {
    if (this.streamSid && this.open) this.socket.send(markMessage(this.streamSid, name));
  }

  /** A line of the live transcript, for a browser web call (serializers/twilio.ts `transcriptMessage`). */
  sendTranscript(role: 'assistant' | 'user', text: string): void {
    if (this.streamSid && this.open) this.socket.send(transcriptMessage(this.streamSid, { role, text, final: true }));
  }

  /** Tells the far side to drop the audio it holds (barge-in). */
  sendClear(): void {
    this.audio?.clearOutbound();
    if (this.streamSid && this.open) this.socket.send(clearMessage(this.streamSid));
  }

  /** Ends the stream normally. */
  close(reason = 'The call has ended.'): void {
    this.closeSocket(1000, reason);
  }

  /**
   * Ends the stream because of `error`, with its close code and reason. The stream is over at once, for whoever
   * listens too, whether or not the far side answers the closing handshake: a session must not talk on to a
   * socket it has closed (nor bill the time).
   */
  fail(error: unknown): void {
    const frame = closeFrameFor(error);
    this.failed = true;
    this.logger.info({ err: error, closeCode: frame.code }, 'media stream closed on error');
    this.rejectStart?.(error instanceof Error ? error : new Error(String(error)));
    this.closeSocket(frame.code, frame.reason);
    this.end();
  }

  private closeSocket(code: number, reason: string): void {
    if (this.socket.readyState !== this.socket.CONNECTING && !this.open) return;
    this.socket.close(code, reason);
    const cut = setTimeout(() => this.socket.terminate(), CLOSE_HANDSHAKE_MS);
    cut.unref();
    this.socket.once('close', () => clearTimeout(cut));
  }

  private receive(data: Buffer, isBinary: boolean): void {
    let message: InboundMessage;
    try {
      if (isBinary) throw new MediaStreamMessageError('malformed', 'Media Streams messages are JSON text frames.');
      message = parseInboundMessage(data.toString('utf8'));
    } catch (error) {
      if (error instanceof MediaStreamMessageError && error.reason === 'unknown_event') {
        this.logger.debug({ reason: error.message }, 'media stream event ignored');
        return;
      }
      this.fail(error);
      return;
    }
    try {
      this.handle(message);
    } catch (error) {
      this.fail(error);
    }
  }

  private handle(message: InboundMessage): void {
    if (message.event === 'connected') return;
    if (message.event === 'start') {
      if (this.streamSid) throw new MediaStreamMessageError('malformed', 'The stream has already started.');
      this.streamSid = message.start.streamSid;
      this.audio = new MediaStreamAudio(message.start.mediaFormat);
      this.resolveStart?.(message.start);
      return;
    }
    if (!this.streamSid) throw new MediaStreamMessageError('malformed', `A ${message.event} message arrived before start.`);
    if (message.streamSid !== this.streamSid) throw new MediaStreamMessageError('malformed', 'The message belongs to another stream.');
    switch (message.event) {
      case 'media':
        // The far side may echo our own outbound track; only the caller's audio is heard.
        if (message.media.track === 'inbound' && this.audio) this.hear(this.audio.decode(message.media.payload));
        return;
      case 'mark':
        this.handlers?.mark(message.mark.name);
        return;
      case 'dtmf':
        this.handlers?.dtmf(message.dtmf.digit);
        return;
      case 'stop':
        this.end();
        return;
    }
  }

  private hear(frame: Int16Array): void {
    if (this.handlers) return this.handlers.audio(frame, false);
    this.early.push(frame);
    this.earlySamples += frame.length;
    while (this.earlySamples > EARLY_AUDIO_SAMPLES) this.earlySamples -= (this.early.shift() as Int16Array).length;
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.handlers?.ended(this.failed);
  }
}
