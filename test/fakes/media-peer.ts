import { randomBytes } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  clearMessage, markMessage, mediaMessage, parseInboundMessage, type InboundMessage, type StartMessage, type StopMessage,
} from '../../src/voice/serializers/twilio.ts';
import { listenOnLoopback } from '../support/ports.ts';

/** 20 ms of 16 kHz PCM16: the only inbound frame a browser web call sends. */
const FRAME_BYTES = 640;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The far end of one web call's media socket, as the engine would be, driven by the test. */
export interface MediaPeerSession {
  callId: number;
  start: StartMessage;
  /** Every way the client broke the protocol, in words; empty when it followed it to the letter. */
  violations: string[];
  /** The next `count` inbound frames' audio, joined. */
  nextFrames(count: number): Promise<Int16Array>;
  /** Audio to play (PCM16 at 16 kHz), as 20 ms media messages sent at once, the way a fast engine may send ahead. */
  sendAudio(samples: Int16Array): void;
  sendMark(name: string): void;
  sendClear(): void;
  sendTranscript(role: 'assistant' | 'user', text: string, final: boolean): void;
  /** Any other JSON message, such as an event a newer engine might send. */
  sendJson(message: Record<string, unknown>): void;
  /** Resolves with the next mark the client echoes and when (performance.now()) it arrived. */
  nextMark(): Promise<{ name: string; at: number }>;
  /** The client's stop message, once it sends one. */
  stopped: Promise<StopMessage>;
  /** The socket's close, from either side. */
  closed: Promise<void>;
  /** Ends the call from the engine's side, with a close reason the client shows. */
  end(reason: string): void;
}

export interface MediaPeer {
  /** `http://host:port`: answers `POST /api/web-calls` and the media socket its answers point to. */
  url: string;
  /** The bodies of the call requests received, in order. */
  callRequests: { assistant_id: string; variables?: Record<string, unknown> }[];
  /** Answers the next call request with this status and body instead of creating a call. */
  refuseNext(status: number, body: unknown): void;
  /** Resolves with the next call's session once its client has sent its start message. */
  nextSession(): Promise<MediaPeerSession>;
  close(): Promise<void>;
}

/** Things that arrive, kept in order until the test asks for them, so none is missed between two waits. */
class Inbox<T> {
  private readonly items: T[] = [];
  private readonly waiting: ((item: T) => void)[] = [];

  push(item: T): void {
    const waiter = this.waiting.shift();
    if (waiter) waiter(item);
    else this.items.push(item);
  }

  next(): Promise<T> {
    const item = this.items.shift();
    if (item !== undefined) return Promise.resolve(item);
    return new Promise((resolve) => this.waiting.push(resolve));
  }
}

/** Checks each inbound message against the last one, strictly, as the engine's transport would read them. */
class InboundChecker {
  readonly violations: string[] = [];
  private count = 0;
  private sequence = 0;
  private chunk = 0;
  private stopped = false;
  start: StartMessage | undefined;

  private readonly callId: number;
  /** The marks sent and not yet echoed, oldest first: echoes must come back in this order. */
  private readonly pendingMarks: string[];

  constructor(callId: number, pendingMarks: string[]) {
    this.callId = callId;
    this.pendingMarks = pendingMarks;
  }

  check(message: InboundMessage): void {
    this.count += 1;
    const fail = (text: string) => void this.violations.push(`message ${this.count} (${message.event}): ${text}`);
    if (this.stopped) fail('arrived after stop');
    if (this.count === 1) {
      if (message.event !== 'connected' || message.protocol !== 'Call' || message.version !== '1.0.0') fail('the first message must be connected, protocol Call, version 1.0.0');
      return;
    }
    if (message.event === 'connected') return fail('connected may come only first');
    this.sequence += 1;
    if (message.sequenceNumber !== String(this.sequence)) fail(`sequenceNumber ${message.sequenceNumber}, expected ${this.sequence}`);
    if (this.count === 2) {
      if (message.event !== 'start') return fail('the second message must be start');
      const { start } = message;
      if (start.callSid !== String(this.callId)) fail(`callSid ${start.callSid}, expected ${this.callId}`);
      if (start.mediaFormat.encoding !== 'audio/x-l16' || start.mediaFormat.sampleRate !== 16000) fail('mediaFormat must be audio/x-l16 at 16000 Hz');
      if (!start.tracks.includes('inbound')) fail('tracks must include inbound');
      this.start = message;
      return;
    }
    if (message.streamSid !== this.start?.streamSid) fail(`streamSid ${message.streamSid} is not the stream's`);
    switch (message.event) {
      case 'media': {
        this.chunk += 1;
        const { media } = message;
        if (media.track !== 'inbound') fail('media.track must be inbound');
        if (media.chunk !== String(this.chunk)) fail(`chunk ${media.chunk}, expected ${this.chunk}`);
        if (media.timestamp !== String((this.chunk - 1) * 20)) fail(`timestamp ${media.timestamp}, expected ${(this.chunk - 1) * 20}`);
        const bytes = Buffer.from(media.payload, 'base64').length;
        if (bytes !== FRAME_BYTES) fail(`a payload of ${bytes} bytes, expected ${FRAME_BYTES}`);
        return;
      }
      case 'mark':
        if (this.pendingMarks[0] !== message.mark.name) fail(`mark ${message.mark.name}, expected ${this.pendingMarks[0] ?? 'none'}`);
        else this.pendingMarks.shift();
        return;
      case 'stop':
        if (message.stop.callSid !== this.start?.start.callSid || message.stop.accountSid !== this.start.start.accountSid) fail('stop must name the start\'s call and account');
        this.stopped = true;
        return;
      default:
        fail('not an event a web call sends');
    }
  }
}

function openSession(socket: WebSocket, callId: number): Promise<MediaPeerSession> {
  const events = new EventEmitter();
  const pendingMarks: string[] = [];
  const checker = new InboundChecker(callId, pendingMarks);
  const frames: Int16Array[] = [];
  const marks = new Inbox<{ name: string; at: number }>();
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  const stopped = new Promise<StopMessage>((resolve) => events.once('stop', resolve));

  socket.on('message', (data: Buffer) => {
    let message: InboundMessage;
    try {
      message = parseInboundMessage(data.toString());
    } catch (error) {
      checker.violations.push(`unreadable message: ${(error as Error).message}`);
      return;
    }
    checker.check(message);
    if (message.event === 'media') {
      const bytes = Buffer.from(message.media.payload, 'base64');
      frames.push(new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length >> 1));
      events.emit('frame');
    } else if (message.event === 'mark') {
      marks.push({ name: message.mark.name, at: performance.now() });
    }
    events.emit(message.event, message);
  });

  const sendJson = (text: string) => socket.send(text);
  return new Promise((resolve, reject) => {
    socket.once('close', () => reject(new Error('the client closed the socket before its start message')));
    events.once('start', (start: StartMessage) => resolve({
      callId,
      start,
      violations: checker.violations,
      async nextFrames(count) {
        const from = frames.length;
        while (frames.length < from + count) await once(events, 'frame');
        const joined = new Int16Array(count * (FRAME_BYTES / 2));
        frames.slice(from, from + count).forEach((frame, i) => joined.set(frame, i * frame.length));
        return joined;
      },
      sendAudio(samples) {
        for (let offset = 0; offset < samples.length; offset += FRAME_BYTES / 2) {
          const frame = samples.subarray(offset, offset + FRAME_BYTES / 2);
          sendJson(mediaMessage(start.streamSid, Buffer.from(frame.buffer, frame.byteOffset, frame.byteLength).toString('base64')));
        }
      },
      sendMark(name) {
        pendingMarks.push(name);
        sendJson(markMessage(start.streamSid, name));
      },
      sendClear: () => sendJson(clearMessage(start.streamSid)),
      sendTranscript(role, text, final) {
        sendJson(JSON.stringify({ event: 'transcript', streamSid: start.streamSid, transcript: { role, text, final } }));
      },
      sendJson: (message) => sendJson(JSON.stringify(message)),
      nextMark: () => marks.next(),
      stopped,
      closed,
      end: (reason) => socket.close(1000, reason),
    }));
  });
}

/**
 * The server side of a browser web call, for testing the client: `POST /api/web-calls` answered in the
 * platform's shape, with a single-use media socket URL, and on that socket a Media Streams peer that reads
 * every client message with the engine's own parser and checks its order, numbering and audio framing.
 */
export async function startMediaPeer(): Promise<MediaPeer> {
  const tokens = new Map<string, number>();
  const callRequests: MediaPeer['callRequests'] = [];
  const sessions = new Inbox<MediaPeerSession>();
  const refusals: { status: number; body: unknown }[] = [];
  let nextCallId = 1;
  let origin = '';

  const sockets = new WebSocketServer({ noServer: true });
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (chunk: Buffer) => { raw += chunk.toString(); });
    req.on('end', () => {
      const answer = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method !== 'POST' || req.url !== '/api/web-calls') return answer(404, { message: 'Not found.' });
      let body: { assistant_id?: unknown; variables?: unknown };
      try {
        body = JSON.parse(raw) as typeof body;
      } catch {
        return answer(400, { message: 'The body is not JSON.' });
      }
      const { assistant_id: assistantId, variables } = body;
      if (typeof assistantId !== 'string' || !uuidPattern.test(assistantId)) return answer(422, { message: 'The assistant id field must be a valid UUID.' });
      if (variables !== undefined && (typeof variables !== 'object' || variables === null || Array.isArray(variables))) return answer(422, { message: 'The variables field must be an object.' });
      callRequests.push({ assistant_id: assistantId, variables: variables as Record<string, unknown> | undefined });
      const refusal = refusals.shift();
      if (refusal) return answer(refusal.status, refusal.body);
      const token = randomBytes(16).toString('hex');
      const callId = nextCallId++;
      tokens.set(token, callId);
      answer(201, {
        message: 'Web call created successfully',
        data: { call_id: callId, status: 'initiated', websocket_url: `${origin.replace('http', 'ws')}/media/web-call?token=${token}` },
      });
    });
  });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', origin);
    const callId = tokens.get(url.searchParams.get('token') ?? '');
    if (url.pathname !== '/media/web-call' || callId === undefined) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\n\r\n');
      return;
    }
    tokens.delete(url.searchParams.get('token') ?? '');
    sockets.handleUpgrade(req, socket, head, (ws) => {
      openSession(ws, callId).then((session) => sessions.push(session), () => undefined);
    });
  });
  const listening = await listenOnLoopback(server);
  origin = listening.url;

  return {
    url: origin,
    callRequests,
    refuseNext: (status, body) => refusals.push({ status, body }),
    nextSession: () => sessions.next(),
    async close() {
      for (const client of sockets.clients) client.terminate();
      sockets.close();
      await listening.close();
    },
  };
}
