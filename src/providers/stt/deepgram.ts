import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import type { Logger } from '../../logger.ts';
import { errorDetail, statusError } from '../speech-http.ts';
import { AsyncQueue } from '../../lib/async-queue.ts';
import { SpeechProviderError, type StreamingSpeechToText, type TranscriptEvent, type TranscriptionOptions, type TranscriptionStream } from './types.ts';

export interface DeepgramOptions {
  /** `wss://api.deepgram.com`, or a compatible (self-hosted) server. */
  url: string;
  apiKey: string;
  /** e.g. `nova-2`. */
  model: string;
  logger: Logger;
  /** Silence after speech before Deepgram marks a result `speech_final`. */
  endpointingMs?: number;
  /** The gap after the last word before Deepgram sends `UtteranceEnd`; it takes 1000 at least. */
  utteranceEndMs?: number;
  /** Deepgram closes a stream that hears nothing for 10 s; without audio to send, a KeepAlive goes this often. */
  keepAliveMs?: number;
  /** Audio queued but not yet on the wire beyond which frames are dropped: 64 KiB is 2 s at 16 kHz. */
  maxBufferedBytes?: number;
  /** How long `close()` waits for the last finals before it drops the connection. */
  closeTimeoutMs?: number;
}

type Settings = Required<DeepgramOptions>;

/** The messages of Deepgram's live protocol that the adapter reads (the rest are ignored). */
interface DeepgramMessage {
  type?: string;
  is_final?: boolean;
  from_finalize?: boolean;
  speech_final?: boolean;
  channel?: { alternatives?: { transcript?: string; confidence?: number }[] };
  request_id?: string;
}

/**
 * Deepgram's live transcription WebSocket (`/v1/listen`): linear16 frames in, `Results` (interim and final,
 * with `speech_final` at Deepgram's own endpoint) and `UtteranceEnd` out. Frames written before the socket opens
 * wait in a bounded buffer, so the first words are not lost to the handshake.
 */
export class DeepgramSpeechToText implements StreamingSpeechToText {
  readonly kind = 'streaming';
  readonly name = 'deepgram';
  private readonly settings: Settings;

  constructor(options: DeepgramOptions) {
    this.settings = {
      endpointingMs: 300,
      utteranceEndMs: 1000,
      keepAliveMs: 4000,
      maxBufferedBytes: 64 * 1024,
      closeTimeoutMs: 3000,
      ...options,
      url: options.url.replace(/\/+$/, ''),
    };
  }

  open(options: TranscriptionOptions): TranscriptionStream {
    return new DeepgramStream(this.settings, options);
  }
}

class DeepgramStream implements TranscriptionStream {
  readonly events: AsyncQueue<TranscriptEvent>;
  private readonly settings: Settings;
  private readonly signal: AbortSignal;
  private readonly socket: WebSocket;
  /** Frames written while the socket opens. */
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private dropped = 0;
  private sentSinceTick = false;
  private keepAlive: NodeJS.Timeout | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private closing = false;
  private finished = false;
  /** Words were heard since the last `utterance_end`: both `speech_final` and `UtteranceEnd` end an utterance, once. */
  private inUtterance = false;

  constructor(settings: Settings, options: TranscriptionOptions) {
    this.settings = settings;
    this.signal = options.signal;
    this.events = new AsyncQueue({ onLeave: () => this.stop() });
    const query = new URLSearchParams({
      encoding: 'linear16',
      sample_rate: String(options.sampleRate),
      channels: '1',
      language: options.language,
      model: settings.model,
      punctuate: 'true',
      interim_results: 'true',
      endpointing: String(settings.endpointingMs),
      utterance_end_ms: String(settings.utteranceEndMs),
      vad_events: 'true',
    });
    this.socket = new WebSocket(`${settings.url}/v1/listen?${query.toString()}`, {
      headers: { authorization: `Token ${settings.apiKey}` },
      handshakeTimeout: 10_000,
      perMessageDeflate: false,
    });
    this.socket.on('open', () => this.onOpen());
    this.socket.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) this.onMessage(data.toString('utf8'));
    });
    this.socket.on('unexpected-response', (_request, response) => this.onRefused(response));
    this.socket.on('error', (error) => {
      this.fail(new SpeechProviderError(`deepgram connection failed: ${error.message}`, { retryable: true, cause: error }));
    });
    this.socket.on('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
    if (this.signal.aborted) this.stop();
    else this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  write(frame: Int16Array): void {
    if (this.finished || this.closing) return;
    const bytes = Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength);
    if (this.socket.readyState === WebSocket.CONNECTING) {
      if (this.pendingBytes + bytes.length > this.settings.maxBufferedBytes) return this.drop();
      // A copy: the caller may reuse the frame's memory once `write` returns.
      this.pending.push(Buffer.from(bytes));
      this.pendingBytes += bytes.length;
      return;
    }
    if (this.socket.bufferedAmount > this.settings.maxBufferedBytes) return this.drop();
    if (this.dropped > 0) {
      this.settings.logger.warn({ provider: 'deepgram', droppedFrames: this.dropped }, 'speech-to-text caught up after dropping audio');
      this.dropped = 0;
    }
    this.send(bytes);
  }

  finalize(): void {
    if (this.finished || this.closing || this.socket.readyState !== WebSocket.OPEN) return;
    this.send(JSON.stringify({ type: 'Finalize' }));
  }

  close(): void {
    if (this.finished || this.closing) return;
    this.closing = true;
    if (this.socket.readyState === WebSocket.OPEN) this.send(JSON.stringify({ type: 'CloseStream' }));
    this.closeTimer = setTimeout(() => {
      this.settings.logger.warn({ provider: 'deepgram' }, 'speech-to-text did not close the stream in time; dropping it');
      this.finish();
      this.events.end();
    }, this.settings.closeTimeoutMs);
    this.closeTimer.unref();
  }

  private send(data: Buffer | string): void {
    this.socket.send(data);
    this.sentSinceTick = true;
  }

  private drop(): void {
    if (this.dropped++ === 0) {
      this.settings.logger.warn({ provider: 'deepgram', maxBufferedBytes: this.settings.maxBufferedBytes }, 'speech-to-text is falling behind; dropping audio');
    }
  }

  private onOpen(): void {
    for (const frame of this.pending) this.send(frame);
    this.pending = [];
    this.pendingBytes = 0;
    if (this.closing) this.send(JSON.stringify({ type: 'CloseStream' }));
    this.keepAlive = setInterval(() => {
      if (!this.sentSinceTick && this.socket.readyState === WebSocket.OPEN) this.send(JSON.stringify({ type: 'KeepAlive' }));
      this.sentSinceTick = false;
    }, this.settings.keepAliveMs);
    this.keepAlive.unref();
  }

  private onMessage(text: string): void {
    let message: DeepgramMessage;
    try {
      message = JSON.parse(text) as DeepgramMessage;
    } catch {
      this.settings.logger.warn({ provider: 'deepgram' }, 'speech-to-text sent a message that is not JSON');
      return;
    }
    switch (message.type) {
      case 'Results':
        this.onResults(message);
        break;
      case 'UtteranceEnd':
        this.endUtterance();
        break;
      case 'Metadata':
        this.settings.logger.debug({ provider: 'deepgram', requestId: message.request_id }, 'speech-to-text stream summary');
        break;
      // `SpeechStarted` and anything newer: barge-in is decided by the local VAD, a round trip sooner.
    }
  }

  private onResults(message: DeepgramMessage): void {
    const alternative = message.channel?.alternatives?.[0];
    const text = alternative?.transcript?.trim() ?? '';
    if (message.is_final) {
      // The answer to a Finalize settles the words even when it has none: nothing was pending.
      if (text || message.from_finalize) {
        const confidence = alternative?.confidence;
        this.events.push({ type: 'final', text, ...(typeof confidence === 'number' && text ? { confidence } : {}), ...(message.from_finalize ? { flushed: true } : {}) });
        this.inUtterance = true;
      }
      if (message.speech_final) this.endUtterance();
    } else if (text) {
      this.events.push({ type: 'partial', text });
      this.inUtterance = true;
    }
  }

  private endUtterance(): void {
    if (!this.inUtterance) return;
    this.inUtterance = false;
    this.events.push({ type: 'utterance_end' });
  }

  private onRefused(response: IncomingMessage): void {
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (piece: string) => {
      if (text.length < 2000) text += piece;
    });
    response.on('end', () => {
      const header = response.headers['dg-error'];
      const detail = typeof header === 'string' ? header : errorDetail(text);
      this.fail(statusError('deepgram', response.statusCode ?? 0, detail));
    });
  }

  private onClose(code: number, reason: string): void {
    if (this.finished) return;
    if (code === 1000) {
      this.finish();
      this.events.end();
      return;
    }
    // 1008: the audio could not be decoded (DATA-0000), which sending it again will not change; 1011 and
    // abnormal closes are timeouts and network failures.
    const why = reason ? `${code} ${reason.slice(0, 200)}` : String(code);
    this.fail(new SpeechProviderError(`deepgram closed the stream (${why})`, { retryable: code !== 1008 }));
  }

  private readonly onAbort = () => this.stop();

  /** Ends the events quietly, unread ones dropped, and the connection at once: aborted, or the consumer left. */
  private stop(): void {
    if (this.finished) return;
    this.finish();
    this.events.clear();
  }

  private fail(error: SpeechProviderError): void {
    if (this.finished) return;
    this.finish();
    this.events.end(error);
  }

  private finish(): void {
    this.finished = true;
    clearInterval(this.keepAlive);
    clearTimeout(this.closeTimer);
    this.signal.removeEventListener('abort', this.onAbort);
    this.pending = [];
    if (this.socket.readyState !== WebSocket.CLOSED) this.socket.terminate();
  }
}
