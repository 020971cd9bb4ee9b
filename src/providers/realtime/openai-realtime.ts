import type { IncomingMessage } from 'node:http';
import WebSocket from 'ws';
import { AsyncQueue } from '../../lib/async-queue.ts';
import { OPENAI_SAMPLE_RATE, encodeAudio, sessionUpdate, translate, type ServerEvent, type WireError } from './openai-wire.ts';
import { RealtimeProviderError, type RealtimeConnection, type RealtimeEvent, type RealtimeModel, type RealtimeSessionOptions } from './types.ts';

export interface OpenAiRealtimeOptions {
  /** The Realtime endpoint without query, e.g. `wss://api.openai.com/v1/realtime`. */
  url: string;
  /** Sent as a bearer token; compatible local servers may take none. */
  apiKey: string | undefined;
  /** The longest wait from dialling to the session's configuration being confirmed. */
  connectTimeoutMs?: number;
  /** Caller audio waiting in the socket beyond which frames are dropped (256 KiB is about 4 s of 24 kHz PCM16 in base64). */
  maxBufferedBytes?: number;
}

/** Upgrade statuses worth dialling again: the provider was busy or failed on its side. */
const RETRYABLE_STATUSES = new Set([408, 429, 500, 502, 503, 504]);
/** Error codes of a refused session that no retry fixes, and those that one may. */
const RETRYABLE_ERROR_TYPES = new Set(['server_error']);
const RETRYABLE_ERROR_CODES = new Set(['rate_limit_exceeded', 'server_error']);
/** Server events queued for a slow consumer before the socket stops reading: a few seconds of audio deltas. */
const EVENT_HIGH_WATER = 256;
/** Audio deltas are small; anything near this is not the protocol. */
const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

function refusal(error: WireError): RealtimeProviderError {
  const retryable = RETRYABLE_ERROR_TYPES.has(error.type ?? '') || RETRYABLE_ERROR_CODES.has(error.code ?? '');
  return new RealtimeProviderError(`the realtime provider refused the session: ${error.message}`, { retryable, ...(error.code ? { code: error.code } : {}) });
}

/** The start of an HTTP answer to the upgrade, for the error it explains. */
function readBody(response: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let body = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => { if (body.length < 2000) body += chunk; });
    response.on('end', () => resolve(body));
    response.on('error', () => resolve(body));
  });
}

function detailOf(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') return parsed.error.message;
  } catch {
    // not JSON: the text itself says what went wrong
  }
  return body.slice(0, 300) || 'no details';
}

/**
 * The OpenAI Realtime API over its WebSocket (`wss://…/v1/realtime?model=…`, a bearer key): one socket per
 * call, PCM16 at 24 kHz both ways, the provider's server VAD deciding the caller's turns. Azure OpenAI and
 * self-hosted servers that speak the same protocol work with their own `url`.
 */
export class OpenAiRealtimeModel implements RealtimeModel {
  readonly name = 'openai';
  private readonly options: Required<Omit<OpenAiRealtimeOptions, 'apiKey'>> & { apiKey: string | undefined };

  constructor(options: OpenAiRealtimeOptions) {
    this.options = {
      url: options.url.replace(/\/+$/, ''),
      apiKey: options.apiKey,
      connectTimeoutMs: options.connectTimeoutMs ?? 10_000,
      maxBufferedBytes: options.maxBufferedBytes ?? 256 * 1024,
    };
  }

  async connect(session: RealtimeSessionOptions): Promise<RealtimeConnection> {
    session.signal.throwIfAborted();
    const url = new URL(this.options.url);
    url.searchParams.set('model', session.model);
    const socket = new WebSocket(url, {
      headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
      handshakeTimeout: this.options.connectTimeoutMs,
      maxPayload: MAX_MESSAGE_BYTES,
      perMessageDeflate: false,
    });
    const connection = new OpenAiRealtimeConnection(socket, session, this.options);
    await connection.opened;
    return connection;
  }
}

class OpenAiRealtimeConnection implements RealtimeConnection {
  readonly sampleRate = OPENAI_SAMPLE_RATE;
  readonly events: AsyncQueue<RealtimeEvent>;
  /** Resolves once the provider confirmed the session's configuration; rejects with why it did not. */
  readonly opened: Promise<void>;
  private readonly socket: WebSocket;
  private readonly signal: AbortSignal;
  private readonly maxBufferedBytes: number;
  private state: 'connecting' | 'open' | 'closed' = 'connecting';
  private readonly settle: { resolve: () => void; reject: (error: Error) => void };
  private readonly connectTimer: NodeJS.Timeout;
  /** The answer being generated, which `cancelResponse` stops. */
  private activeResponse: string | undefined;
  private dropping = false;
  /** The last error the provider reported, which may explain a close that follows it. */
  private lastError: WireError | undefined;

  constructor(socket: WebSocket, session: RealtimeSessionOptions, options: { connectTimeoutMs: number; maxBufferedBytes: number }) {
    this.socket = socket;
    this.signal = session.signal;
    this.maxBufferedBytes = options.maxBufferedBytes;
    this.events = new AsyncQueue({ flow: { highWater: EVENT_HIGH_WATER, lowWater: EVENT_HIGH_WATER / 4, pause: () => socket.pause(), resume: () => socket.resume() } });
    const { promise, resolve, reject } = Promise.withResolvers<void>();
    this.opened = promise;
    this.settle = { resolve, reject };
    this.connectTimer = setTimeout(() => {
      this.fail(new RealtimeProviderError(`the realtime provider did not confirm the session within ${options.connectTimeoutMs} ms`, { retryable: true }));
    }, options.connectTimeoutMs);

    socket.on('unexpected-response', (request, response) => {
      void readBody(response).then((body) => {
        const status = response.statusCode ?? 0;
        this.fail(new RealtimeProviderError(`the realtime provider answered ${status}: ${detailOf(body)}`, { retryable: RETRYABLE_STATUSES.has(status) }));
        request.destroy();
      });
    });
    socket.on('error', (error) => {
      this.fail(new RealtimeProviderError(`the realtime provider could not be reached: ${error.message}`, { retryable: true, cause: error }));
    });
    socket.on('open', () => this.send(sessionUpdate(session)));
    // With the default binaryType every message arrives as one Buffer; the protocol's are JSON text.
    socket.on('message', (data: Buffer, isBinary) => {
      if (!isBinary) this.receive(data.toString('utf8'));
    });
    socket.on('close', (code, reason) => this.closed(code, reason.toString()));
    this.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  appendAudio(pcm: Int16Array): void {
    if (this.state !== 'open' || pcm.length === 0) return;
    if (this.socket.bufferedAmount > this.maxBufferedBytes) {
      if (!this.dropping) {
        this.dropping = true;
        this.events.push({ type: 'error', message: 'caller audio is being dropped: the realtime provider does not keep up', code: 'audio_dropped' });
      }
      return;
    }
    this.dropping = false;
    this.send({ type: 'input_audio_buffer.append', audio: encodeAudio(pcm) });
  }

  createResponse(instructions?: string): void {
    this.send({ type: 'response.create', ...(instructions ? { response: { instructions } } : {}) });
  }

  cancelResponse(): void {
    if (this.activeResponse === undefined) return;
    this.send({ type: 'response.cancel', response_id: this.activeResponse });
  }

  truncate(itemId: string, audioEndMs: number): void {
    this.send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: Math.max(0, Math.floor(audioEndMs)) });
  }

  sendFunctionResult(callId: string, output: string): void {
    this.send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
  }

  close(): void {
    this.shutDown();
    this.events.end();
  }

  private readonly onAbort = (): void => {
    this.fail(this.signal.reason instanceof Error ? this.signal.reason : new Error('aborted'));
  };

  private send(event: Record<string, unknown>): void {
    if (this.socket.readyState === WebSocket.OPEN && this.state !== 'closed') this.socket.send(JSON.stringify(event));
  }

  private receive(raw: string): void {
    let event: ServerEvent;
    try {
      event = JSON.parse(raw) as ServerEvent;
    } catch {
      this.events.push({ type: 'error', message: 'the realtime provider sent an event that is not JSON', code: 'malformed_event' });
      return;
    }
    if (event.type === 'error') {
      const error = (event.error ?? { message: 'no details' }) as WireError;
      this.lastError = error;
      if (this.state === 'connecting') this.fail(refusal(error));
    }
    if (this.state === 'connecting') {
      if (event.type === 'session.updated') this.ready();
      return;
    }
    if (event.type === 'response.created') this.activeResponse = (event.response as { id?: string } | undefined)?.id;
    if (event.type === 'response.done') this.activeResponse = undefined;
    const translated = translate(event);
    if (translated) this.events.push(translated);
  }

  private ready(): void {
    clearTimeout(this.connectTimer);
    this.state = 'open';
    this.settle.resolve();
  }

  /** Ends the connection because of `error`: before it opened, `connect` rejects; after, `events` throws. */
  private fail(error: Error): void {
    if (this.state === 'closed') return;
    const connecting = this.state === 'connecting';
    this.shutDown();
    if (connecting) {
      this.settle.reject(error);
      this.events.end();
    } else {
      this.events.end(this.signal.aborted ? undefined : error);
    }
  }

  private closed(code: number, reason: string): void {
    if (this.state === 'closed') return;
    // A session the provider ends (its time limit, an outage) may be dialled again.
    const detail = reason || this.lastError?.message || 'no reason given';
    this.fail(new RealtimeProviderError(`the realtime provider closed the connection (${code}): ${detail}`, { retryable: true }));
  }

  private shutDown(): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.connectTimer);
    this.signal.removeEventListener('abort', this.onAbort);
    if (this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.terminate();
    } else if (this.socket.readyState === WebSocket.OPEN) {
      // A socket paused for a slow consumer would not read the provider's closing frame; what it reads now is dropped.
      this.socket.resume();
      this.socket.close(1000);
    }
  }
}
