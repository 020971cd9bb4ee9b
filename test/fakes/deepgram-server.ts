import { createHash, randomUUID, type Hash } from 'node:crypto';
import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenOnLoopback } from '../support/ports.ts';

/**
 * What the fake says for one stretch of speech. Speech shorter than `minSpeechMs` is noise: it gets an empty
 * final, and the utterance waits for the next stretch.
 */
export interface FakeUtterance {
  text: string;
  minSpeechMs?: number;
  confidence?: number;
}

export interface FakeDeepgramConnection {
  id: number;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** Bytes of audio received. */
  audioBytes: number;
  /** The `type` of every text message received (`KeepAlive`, `CloseStream`, …), in order. */
  controls: string[];
  /** Every message sent, in order. */
  sent: Record<string, unknown>[];
  /** Resolves with the close code the fake saw (1006 when the client dropped the connection). */
  closed: Promise<number>;
  /** Closes from the server side, as Deepgram does on a timeout (1011) or undecodable audio (1008). */
  closeWith(code: number, reason: string): void;
}

export interface FakeDeepgramServer {
  /** `ws://127.0.0.1:port`, for DEEPGRAM_URL. */
  url: string;
  apiKey: string;
  connections: FakeDeepgramConnection[];
  /** Queues utterances, given to stretches of speech in order; `respond` decides when the queue is empty. */
  script(...utterances: FakeUtterance[]): void;
  respond(decide: (connection: FakeDeepgramConnection) => FakeUtterance | undefined): void;
  /** Answers the next handshake with this HTTP status instead of upgrading. */
  refuseNext(status: number): void;
  /** Delay added before every message the fake sends (the provider's processing and network time). */
  resultDelayMs: number;
  nextConnection(): Promise<FakeDeepgramConnection>;
  close(): Promise<void>;
}

const encodings = new Set(['linear16', 'mulaw', 'alaw', 'opus', 'flac', 'amr-nb', 'amr-wb', 'speex', 'g729']);
/** Audio is judged in 10 ms windows; a window louder than this RMS is speech. */
const WINDOW_MS = 10;

function refuse(socket: Duplex, status: number, body: Record<string, string>): void {
  const text = JSON.stringify(body);
  socket.end([
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status] ?? 'Error'}`,
    'content-type: application/json',
    `dg-error: ${body.err_msg}`,
    `dg-request-id: ${body.request_id}`,
    `content-length: ${Buffer.byteLength(text)}`,
    'connection: close',
    '',
    text,
  ].join('\r\n'));
}

/** Why the query would be refused by Deepgram, for what the fake decodes; undefined when it is accepted. */
function badQuery(query: URLSearchParams): string | undefined {
  const encoding = query.get('encoding');
  if (encoding !== null && !encodings.has(encoding)) return `Invalid encoding: ${encoding}`;
  if (encoding !== null && encoding !== 'linear16') return `the fake decodes linear16 only, got ${encoding}`;
  const rate = Number(query.get('sample_rate'));
  if (encoding !== null && !(Number.isInteger(rate) && rate >= 8000 && rate <= 48000)) return 'sample_rate is required for raw audio encodings';
  if ((query.get('channels') ?? '1') !== '1') return 'the fake decodes one channel only';
  const endpointing = query.get('endpointing');
  if (endpointing !== null && endpointing !== 'false' && !/^\d+$/.test(endpointing)) return `Invalid endpointing: ${endpointing}`;
  if (query.has('utterance_end_ms') && query.get('interim_results') !== 'true') return 'utterance_end_ms requires interim_results=true';
  // A BCP 47 tag (`de`, `de-DE`) or `multi`, as the service takes; anything else has no model.
  const language = query.get('language');
  if (language !== null && language !== 'multi' && !/^[a-z]{2,3}(-[A-Z]{2})?$/.test(language)) return 'No such model/language/tier combination found';
  return undefined;
}

/**
 * A local server speaking Deepgram's live transcription protocol (`/v1/listen`): `Token` auth and query
 * checked at the handshake (401 and 400 with `dg-error`, like the service), linear16 audio judged by loudness
 * in audio time, `SpeechStarted`, interim `Results`, a final with `speech_final` after `endpointing` ms of
 * silence (at once on `Finalize`, marked `from_finalize`), `UtteranceEnd` after `utterance_end_ms`, `Metadata`
 * and a normal close on `CloseStream`, and a
 * 1011 close when nothing arrives for `idleTimeoutMs` (Deepgram's 10 s, NET-0001).
 */
export async function startFakeDeepgramServer(options: {
  apiKey?: string;
  resultDelayMs?: number;
  interimIntervalMs?: number;
  speechRms?: number;
  idleTimeoutMs?: number;
} = {}): Promise<FakeDeepgramServer> {
  const apiKey = options.apiKey ?? 'test-deepgram-key';
  const interimIntervalMs = options.interimIntervalMs ?? 200;
  const speechRms = options.speechRms ?? 500;
  const queue: FakeUtterance[] = [];
  const refusals: number[] = [];
  const connections: FakeDeepgramConnection[] = [];
  const arrivals = new EventEmitter();
  let decide: ((connection: FakeDeepgramConnection) => FakeUtterance | undefined) | undefined;
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  const fake: FakeDeepgramServer = {
    url: '',
    apiKey,
    connections,
    script: (...utterances) => { queue.push(...utterances); },
    respond: (fn) => { decide = fn; },
    refuseNext: (status) => { refusals.push(status); },
    resultDelayMs: options.resultDelayMs ?? 0,
    nextConnection: async () => ((await once(arrivals, 'connection')) as [FakeDeepgramConnection])[0],
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await listening.close();
    },
  };

  server.on('upgrade', (req: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const requestId = randomUUID();
    if (url.pathname !== '/v1/listen') return refuse(socket, 404, { err_code: 'NOT_FOUND', err_msg: 'Not found.', request_id: requestId });
    if (req.headers.authorization !== `Token ${apiKey}`) {
      return refuse(socket, 401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: requestId });
    }
    const refusal = refusals.shift();
    if (refusal) return refuse(socket, refusal, { err_code: 'REFUSED', err_msg: `Refused by the test with ${refusal}.`, request_id: requestId });
    const problem = badQuery(url.searchParams);
    if (problem) return refuse(socket, 400, { err_code: 'Bad Request', err_msg: problem, request_id: requestId });
    wss.handleUpgrade(req, socket, head, (ws) => {
      const connection = serve(ws, url.searchParams, req.headers, requestId);
      connections.push(connection);
      arrivals.emit('connection', connection);
    });
  });

  function nextUtterance(connection: FakeDeepgramConnection): { utterance: FakeUtterance; queued: boolean } | undefined {
    const queued = queue.shift();
    if (queued) return { utterance: queued, queued: true };
    const decided = decide?.(connection);
    return decided && { utterance: decided, queued: false };
  }

  function serve(ws: WebSocket, query: URLSearchParams, headers: http.IncomingHttpHeaders, requestId: string): FakeDeepgramConnection {
    const sampleRate = Number(query.get('sample_rate') ?? 16000);
    const windowSamples = (sampleRate * WINDOW_MS) / 1000;
    const endpointing = query.get('endpointing') === 'false' ? undefined : Number(query.get('endpointing') ?? 10);
    const utteranceEndMs = query.has('utterance_end_ms') ? Number(query.get('utterance_end_ms')) : undefined;
    const interim = query.get('interim_results') === 'true';
    const vadEvents = query.get('vad_events') === 'true';
    const sha256: Hash = createHash('sha256');
    const outbox: { due: number; message: Record<string, unknown> | 'close' }[] = [];
    let outboxTimer: NodeJS.Timeout | undefined;
    let resolveClosed: (code: number) => void = () => {};

    // Audio state, all in audio time (ms of samples received).
    let carry: number | undefined;
    let windowSum = 0;
    let windowCount = 0;
    let nowMs = 0;
    let speech: { startMs: number; lastVoiceMs: number; voicedMs: number; nextInterimMs: number; pick?: ReturnType<typeof nextUtterance> } | undefined;
    let pendingUtteranceEnd: { lastWordEndMs: number } | undefined;
    let closing = false;

    const connection: FakeDeepgramConnection = {
      id: connections.length + 1,
      query,
      headers,
      audioBytes: 0,
      controls: [],
      sent: [],
      closed: new Promise((resolve) => { resolveClosed = resolve; }),
      closeWith: (code, reason) => ws.close(code, reason),
    };

    const flush = () => {
      outboxTimer = undefined;
      while (outbox.length > 0 && outbox[0]!.due <= performance.now()) {
        const { message } = outbox.shift()!;
        if (ws.readyState !== ws.OPEN) return;
        if (message === 'close') ws.close(1000);
        else {
          connection.sent.push(message);
          ws.send(JSON.stringify(message));
        }
      }
      if (outbox.length > 0) outboxTimer = setTimeout(flush, Math.max(outbox[0]!.due - performance.now(), 0));
    };
    const emit = (message: Record<string, unknown> | 'close') => {
      const due = Math.max(performance.now() + fake.resultDelayMs, outbox.at(-1)?.due ?? 0);
      outbox.push({ due, message });
      if (!outboxTimer) outboxTimer = setTimeout(flush, Math.max(due - performance.now(), 0));
    };

    const results = (text: string, isFinal: boolean, speechFinal: boolean, confidence: number, fromFinalize = false) => {
      const startMs = speech?.startMs ?? nowMs;
      const words = text ? text.split(/\s+/) : [];
      const span = (nowMs - startMs) / Math.max(words.length, 1);
      emit({
        type: 'Results',
        channel_index: [0, 1],
        duration: (nowMs - startMs) / 1000,
        start: startMs / 1000,
        is_final: isFinal,
        speech_final: speechFinal,
        channel: {
          alternatives: [{
            transcript: text,
            confidence: text ? confidence : 0,
            words: words.map((word, index) => ({
              word: word.toLowerCase().replace(/[^\p{L}\p{N}']/gu, ''),
              start: (startMs + index * span) / 1000,
              end: (startMs + (index + 1) * span) / 1000,
              confidence,
              punctuated_word: word,
            })),
          }],
        },
        metadata: { request_id: requestId, model_info: { name: query.get('model') ?? 'general', version: 'fake', arch: 'fake' }, model_uuid: requestId },
        from_finalize: fromFinalize,
      });
    };

    const finalizeSpeech = (speechFinal: boolean, fromFinalize = false) => {
      if (!speech) {
        if (fromFinalize) results('', true, false, 0, true);
        return;
      }
      const pick = speech.pick;
      const heard = pick && speech.voicedMs >= (pick.utterance.minSpeechMs ?? 0);
      if (pick && !heard && pick.queued) queue.unshift(pick.utterance);
      results(heard ? pick.utterance.text : '', true, speechFinal, pick?.utterance.confidence ?? 0.98, fromFinalize);
      if (heard && utteranceEndMs !== undefined) pendingUtteranceEnd = { lastWordEndMs: speech.lastVoiceMs };
      speech = undefined;
    };

    const onWindow = (voiced: boolean) => {
      nowMs += WINDOW_MS;
      if (voiced) {
        if (!speech) {
          pendingUtteranceEnd = undefined;
          speech = { startMs: nowMs - WINDOW_MS, lastVoiceMs: nowMs, voicedMs: 0, nextInterimMs: interimIntervalMs };
          speech.pick = nextUtterance(connection);
          if (vadEvents) emit({ type: 'SpeechStarted', channel: [0], timestamp: speech.startMs / 1000 });
        }
        speech.lastVoiceMs = nowMs;
        speech.voicedMs += WINDOW_MS;
        const utterance = speech.pick?.utterance;
        if (interim && utterance && speech.voicedMs >= speech.nextInterimMs && speech.voicedMs >= (utterance.minSpeechMs ?? 0)) {
          speech.nextInterimMs += interimIntervalMs;
          const words = utterance.text.split(/\s+/);
          const shown = Math.max(1, Math.min(words.length - 1, Math.floor(speech.voicedMs / interimIntervalMs)));
          results(words.slice(0, shown).join(' '), false, false, 0.8);
        }
        return;
      }
      if (speech && nowMs - speech.lastVoiceMs >= (endpointing ?? 300)) finalizeSpeech(endpointing !== undefined);
      if (pendingUtteranceEnd && utteranceEndMs !== undefined && nowMs - pendingUtteranceEnd.lastWordEndMs >= utteranceEndMs) {
        emit({ type: 'UtteranceEnd', channel: [0, 1], last_word_end: pendingUtteranceEnd.lastWordEndMs / 1000 });
        pendingUtteranceEnd = undefined;
      }
    };

    const addSample = (sample: number) => {
      windowSum += sample * sample;
      if (++windowCount < windowSamples) return;
      onWindow(Math.sqrt(windowSum / windowCount) > speechRms);
      windowSum = 0;
      windowCount = 0;
    };
    const onAudio = (bytes: Buffer) => {
      connection.audioBytes += bytes.length;
      sha256.update(bytes);
      let i = 0;
      if (carry !== undefined && bytes.length > 0) {
        addSample(((carry | (bytes[0]! << 8)) << 16) >> 16);
        carry = undefined;
        i = 1;
      }
      for (; i + 1 < bytes.length; i += 2) addSample(bytes.readInt16LE(i));
      if (i < bytes.length) carry = bytes[i];
    };

    const idle = setTimeout(() => ws.close(1011, 'NET-0001: no audio or text message within the timeout window'), options.idleTimeoutMs ?? 10_000);
    ws.on('message', (data: Buffer, isBinary) => {
      idle.refresh();
      if (closing) return;
      if (isBinary) return onAudio(data);
      let type = 'invalid';
      try {
        type = String((JSON.parse(data.toString('utf8')) as { type?: unknown }).type);
      } catch {
        // recorded as `invalid`
      }
      connection.controls.push(type);
      // Finalize: the audio so far is settled at once, as a final marked `from_finalize`.
      if (type === 'Finalize') return finalizeSpeech(false, true);
      if (type !== 'CloseStream') return;
      closing = true;
      finalizeSpeech(false);
      emit({
        type: 'Metadata',
        transaction_key: 'deprecated',
        request_id: requestId,
        sha256: sha256.digest('hex'),
        created: new Date().toISOString(),
        duration: nowMs / 1000,
        channels: 1,
      });
      emit('close');
    });
    ws.on('close', (code) => {
      clearTimeout(idle);
      clearTimeout(outboxTimer);
      resolveClosed(code);
    });
    return connection;
  }

  const listening = await listenOnLoopback(server);
  fake.url = listening.url.replace(/^http:/, 'ws:');
  return fake;
}
