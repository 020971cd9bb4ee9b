import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { WebSocketServer, type WebSocket } from 'ws';
import { listenOnLoopback } from '../support/ports.ts';
import { EnergyVad, tone } from './realtime-vad.ts';

/** What the model answers: spoken text, or a function call whose output the client must send before `then` is spoken. */
export type FakeRealtimeReply = { say: string } | { call: { name: string; arguments: Record<string, unknown> }; then: string };

/** One scripted exchange: what the caller is heard to say (the input transcription), and the answer. */
export interface FakeRealtimeTurn {
  heard?: string;
  reply: FakeRealtimeReply;
}

/** One client connection, as the tests inspect it. */
export interface FakeRealtimeSession {
  model: string;
  authorization: string | undefined;
  /** The session configuration as the client's `session.update`s left it (wire shape). */
  config: Record<string, any>;
  /** Types of every client event, in order. */
  received: string[];
  /** The `response` object of each `response.create`. */
  responseRequests: Record<string, any>[];
  truncations: { itemId: string; contentIndex: number; audioEndMs: number }[];
  functionOutputs: { callId: string; output: string }[];
  /** Responses that were cancelled, with the reason (`client_cancelled` or `turn_detected`). */
  cancellations: { responseId: string; reason: string }[];
  /** Resolves when the socket has closed, from either side. */
  closed: Promise<void>;
}

export interface FakeRealtimeServer {
  /** `ws://127.0.0.1:port/v1/realtime`, the adapter's endpoint. */
  url: string;
  sessions: FakeRealtimeSession[];
  /** Queues turns, answered in order; an answer beyond the script says "OK". */
  script(...turns: FakeRealtimeTurn[]): void;
  /** Resolves with the next connection the server accepts. */
  nextSession(): Promise<FakeRealtimeSession>;
  /** Answers the next upgrade with this HTTP status instead of a session. */
  refuseNext(status: number): void;
  close(): Promise<void>;
}

export interface FakeRealtimeOptions {
  apiKey?: string;
  /** Audio of the spoken answer per character of its text. */
  msPerCharacter?: number;
  /** Audio per `response.output_audio.delta`, sent every `chunkMs / speedUp` of wall time. */
  chunkMs?: number;
  speedUp?: number;
  /** Wait before the first audio delta: the model's time to first byte. */
  firstDeltaDelayMs?: number;
}

type Send = (event: Record<string, unknown>) => void;
let counter = 0;
const newId = (prefix: string) => `${prefix}_${(++counter).toString().padStart(6, '0')}`;

function defaultSession(model: string): Record<string, any> {
  const format = { type: 'audio/pcm', rate: 24000 };
  return {
    id: newId('sess'), object: 'realtime.session', type: 'realtime', model, output_modalities: ['audio'], instructions: '',
    tools: [], tool_choice: 'auto', max_output_tokens: 'inf',
    audio: {
      input: { format, transcription: null, noise_reduction: null, turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200, create_response: true, interrupt_response: true, idle_timeout_ms: null } },
      output: { format, voice: 'alloy', speed: 1 },
    },
  };
}

/** `session.update` semantics: objects merge field by field, anything else (arrays, null) replaces. */
function merge(target: Record<string, any>, update: Record<string, any>): void {
  for (const [key, value] of Object.entries(update)) {
    const current = target[key];
    if (value && typeof value === 'object' && !Array.isArray(value) && current && typeof current === 'object' && !Array.isArray(current)) merge(current, value);
    else target[key] = value;
  }
}

/**
 * A local server speaking the OpenAI Realtime WebSocket protocol (the GA interface) as far as Parley uses it:
 * bearer auth and the `model` query; `session.update`; a server VAD over appended PCM16 (see EnergyVad);
 * answers from a script, spoken as a tone as long as the text in paced `response.output_audio.delta`s with
 * transcript deltas beside them; function calls; `response.cancel` and barge-in; `conversation.item.truncate`;
 * and `error` events for what the real service refuses.
 */
export async function startFakeRealtimeServer(options: FakeRealtimeOptions = {}): Promise<FakeRealtimeServer> {
  const apiKey = options.apiKey ?? 'test-realtime-key';
  const queue: FakeRealtimeTurn[] = [];
  const sessions: FakeRealtimeSession[] = [];
  const arrivals = new EventEmitter();
  let refusal: number | undefined;
  const httpServer = http.createServer((_req, res) => res.writeHead(426).end());
  const wss = new WebSocketServer({ noServer: true });

  httpServer.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const status = url.pathname === '/v1/realtime' ? refusal : 404;
    if (status !== undefined) {
      refusal = undefined;
      const body = JSON.stringify({ error: { message: status === 404 ? 'Not found' : 'The server is overloaded.', type: 'server_error' } });
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = serve(ws, url.searchParams.get('model') ?? '', req.headers.authorization);
      sessions.push(session);
      arrivals.emit('session', session);
    });
  });

  function serve(ws: WebSocket, model: string, authorization: string | undefined): FakeRealtimeSession {
    const session: FakeRealtimeSession = {
      model, authorization, config: defaultSession(model), received: [], responseRequests: [], truncations: [], functionOutputs: [], cancellations: [],
      closed: new Promise((resolve) => ws.once('close', () => resolve())),
    };
    const send: Send = (event) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: newId('event'), ...event }));
    };
    const fail = (type: string, code: string, message: string, extra: Record<string, unknown> = {}) => send({ type: 'error', error: { type, code, message, param: null, event_id: null, ...extra } });
    if (authorization !== `Bearer ${apiKey}`) {
      fail('invalid_request_error', 'invalid_api_key', 'Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.');
      ws.close(1008, 'invalid_api_key');
      return session;
    }
    if (!model) {
      fail('invalid_request_error', 'missing_model', 'Missing required parameter: model.');
      ws.close(1008, 'missing_model');
      return session;
    }
    const conversation = new FakeConversation(session, send, fail, () => queue.shift(), options);
    send({ type: 'session.created', session: session.config });
    ws.on('message', (data: Buffer, isBinary) => conversation.receive(isBinary ? '' : data.toString('utf8')));
    ws.on('close', () => conversation.stop());
    return session;
  }

  const { url, close } = await listenOnLoopback(httpServer);
  return {
    url: `${url.replace('http:', 'ws:')}/v1/realtime`,
    sessions,
    script: (...turns) => { queue.push(...turns); },
    nextSession: async () => ((await once(arrivals, 'session')) as [FakeRealtimeSession])[0],
    refuseNext: (status) => { refusal = status; },
    close: async () => {
      for (const client of wss.clients) client.terminate();
      await close();
    },
  };
}

interface ActiveResponse {
  id: string;
  cancel: AbortController;
}

/** The state of one session: caller audio, the assistant items spoken, the answer in progress. */
class FakeConversation {
  private readonly vad = new EnergyVad();
  private readonly spokenMs = new Map<string, number>();
  private readonly calls = new Set<string>();
  private active: ActiveResponse | undefined;
  private userItem = '';
  /** The answer to give once the client sent the output of this call and asks for a response. */
  private followUp: { callId: string; say: string } | undefined;
  private readonly session: FakeRealtimeSession;
  private readonly send: Send;
  private readonly fail: (type: string, code: string, message: string, extra?: Record<string, unknown>) => void;
  private readonly nextTurn: () => FakeRealtimeTurn | undefined;
  private readonly options: Required<Omit<FakeRealtimeOptions, 'apiKey'>>;

  constructor(session: FakeRealtimeSession, send: Send, fail: FakeConversation['fail'], nextTurn: () => FakeRealtimeTurn | undefined, options: FakeRealtimeOptions) {
    this.session = session;
    this.send = send;
    this.fail = fail;
    this.nextTurn = nextTurn;
    this.options = { msPerCharacter: options.msPerCharacter ?? 20, chunkMs: options.chunkMs ?? 40, speedUp: options.speedUp ?? 1, firstDeltaDelayMs: options.firstDeltaDelayMs ?? 0 };
  }

  receive(raw: string): void {
    let event: Record<string, any>;
    try {
      event = JSON.parse(raw);
      if (!event || typeof event !== 'object' || typeof event.type !== 'string') throw new Error('no type');
    } catch {
      this.fail('invalid_request_error', 'invalid_json', 'The server could not parse the client event as a JSON object with a type.');
      return;
    }
    this.session.received.push(event.type);
    const invalid = (param: string, message: string) => this.fail('invalid_request_error', 'invalid_value', message, { param, event_id: event.event_id ?? null });
    switch (event.type) {
      case 'session.update':
        if (event.session?.type !== 'realtime') return invalid('session.type', "Missing required parameter: 'session.type'.");
        {
          // As the service: the transcription's language is ISO 639-1 (`de`), never a tag like `de-DE`.
          const language = event.session.audio?.input?.transcription?.language as unknown;
          if (language !== undefined && (typeof language !== 'string' || !/^[a-z]{2}$/.test(language))) {
            return invalid('session.audio.input.transcription.language', `Invalid value: ${JSON.stringify(language)}. Language must be specified in ISO-639-1 format.`);
          }
        }
        merge(this.session.config, event.session);
        return this.send({ type: 'session.updated', session: this.session.config });
      case 'input_audio_buffer.append': {
        const bytes = typeof event.audio === 'string' ? Buffer.from(event.audio, 'base64') : Buffer.alloc(0);
        if (bytes.length === 0 || bytes.length % 2 !== 0) return invalid('audio', 'Invalid audio: expected base64-encoded PCM16.');
        return this.hear(new Int16Array(Uint8Array.prototype.slice.call(bytes).buffer));
      }
      case 'response.create':
        this.session.responseRequests.push(event.response ?? {});
        return this.respondOnRequest();
      case 'response.cancel':
        if (!this.active) return this.fail('invalid_request_error', 'response_cancel_not_active', 'Cancellation failed: no active response found.', { event_id: event.event_id ?? null });
        return this.cancel('client_cancelled');
      case 'conversation.item.truncate': {
        const heard = this.spokenMs.get(event.item_id);
        if (heard === undefined) return invalid('item_id', `Conversation item with id '${event.item_id}' not found.`);
        if (typeof event.audio_end_ms !== 'number' || event.audio_end_ms > heard) return invalid('audio_end_ms', `Audio content of ${heard}ms is already shorter than ${event.audio_end_ms}ms.`);
        this.session.truncations.push({ itemId: event.item_id, contentIndex: event.content_index, audioEndMs: event.audio_end_ms });
        return this.send({ type: 'conversation.item.truncated', item_id: event.item_id, content_index: event.content_index, audio_end_ms: event.audio_end_ms });
      }
      case 'conversation.item.create': {
        const item = event.item ?? {};
        if (item.type !== 'function_call_output' || typeof item.output !== 'string') return invalid('item', 'The fake accepts function_call_output items only.');
        if (!this.calls.has(item.call_id)) return invalid('item.call_id', `No function call with call_id '${item.call_id}'.`);
        this.session.functionOutputs.push({ callId: item.call_id, output: item.output });
        const created = { id: newId('item'), object: 'realtime.item', type: 'function_call_output', call_id: item.call_id, output: item.output };
        this.send({ type: 'conversation.item.added', previous_item_id: null, item: created });
        return this.send({ type: 'conversation.item.done', previous_item_id: null, item: created });
      }
      default:
        return invalid('type', `Invalid value: '${event.type}'.`);
    }
  }

  stop(): void {
    this.active?.cancel.abort();
  }

  private hear(samples: Int16Array): void {
    const input = this.session.config.audio.input;
    const detection = input.turn_detection;
    if (!detection) return;
    const settings = { threshold: detection.threshold ?? 0.5, silenceMs: detection.silence_duration_ms ?? 200, prefixPaddingMs: detection.prefix_padding_ms ?? 300 };
    for (const transition of this.vad.push(samples, settings)) {
      if (transition.type === 'started') {
        this.userItem = newId('item');
        this.send({ type: 'input_audio_buffer.speech_started', audio_start_ms: transition.audioStartMs, item_id: this.userItem });
        if (this.active && detection.interrupt_response !== false) this.cancel('turn_detected');
        continue;
      }
      this.send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: transition.audioEndMs, item_id: this.userItem });
      this.send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: this.userItem });
      this.send({ type: 'conversation.item.added', previous_item_id: null, item: { id: this.userItem, object: 'realtime.item', type: 'message', role: 'user', content: [{ type: 'input_audio', transcript: null }] } });
      const turn = this.nextTurn();
      if (input.transcription) {
        this.send({ type: 'conversation.item.input_audio_transcription.completed', item_id: this.userItem, content_index: 0, transcript: turn?.heard ?? '', usage: { type: 'duration', seconds: 1 } });
      }
      // Like the service, a turn heard while the model still answers (interruption off) gets no answer of its own.
      if (detection.create_response !== false && !this.active) void this.respond(turn?.reply ?? { say: 'OK' });
    }
  }

  private respondOnRequest(): void {
    if (this.active) return this.fail('invalid_request_error', 'conversation_already_has_active_response', `Conversation already has an active response in progress: ${this.active.id}.`);
    const followUp = this.followUp;
    if (!followUp) return void this.respond(this.nextTurn()?.reply ?? { say: 'OK' });
    if (!this.session.functionOutputs.some((output) => output.callId === followUp.callId)) {
      return this.fail('invalid_request_error', 'fake_missing_function_output', `The script expects the output of call ${followUp.callId} first.`);
    }
    this.followUp = undefined;
    void this.respond({ say: followUp.say });
  }

  private cancel(reason: string): void {
    if (!this.active) return;
    this.session.cancellations.push({ responseId: this.active.id, reason });
    this.active.cancel.abort(reason);
  }

  private async respond(reply: FakeRealtimeReply): Promise<void> {
    const response = { id: newId('resp'), cancel: new AbortController() };
    this.active = response;
    const base = { object: 'realtime.response', id: response.id, conversation_id: 'conv_fake', output_modalities: ['audio'] };
    this.send({ type: 'response.created', response: { ...base, status: 'in_progress', status_details: null, output: [], usage: null } });
    const item = 'call' in reply ? this.call(response.id, reply) : await this.speak(response, reply.say);
    if (this.active === response) this.active = undefined;
    const cancelled = response.cancel.signal.aborted;
    const spoken = 'call' in reply ? 0 : reply.say.length;
    this.send({
      type: 'response.done',
      response: {
        ...base,
        status: cancelled ? 'cancelled' : 'completed',
        status_details: cancelled ? { type: 'cancelled', reason: String(response.cancel.signal.reason) } : null,
        output: [item],
        usage: { total_tokens: 40 + spoken, input_tokens: 30, output_tokens: 10 + spoken, input_token_details: { text_tokens: 10, audio_tokens: 20, cached_tokens: 0 }, output_token_details: { text_tokens: 10, audio_tokens: spoken } },
      },
    });
  }

  private call(responseId: string, reply: Extract<FakeRealtimeReply, { call: unknown }>): Record<string, unknown> {
    const callId = newId('call');
    const args = JSON.stringify(reply.call.arguments);
    const item = { id: newId('item'), object: 'realtime.item', type: 'function_call', status: 'completed', call_id: callId, name: reply.call.name, arguments: args };
    const at = { response_id: responseId, item_id: item.id, output_index: 0 };
    this.send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { ...item, status: 'in_progress', arguments: '' } });
    for (let i = 0; i < args.length; i += 8) this.send({ type: 'response.function_call_arguments.delta', ...at, call_id: callId, delta: args.slice(i, i + 8) });
    this.send({ type: 'response.function_call_arguments.done', ...at, call_id: callId, name: reply.call.name, arguments: args });
    this.send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item });
    this.calls.add(callId);
    this.followUp = { callId, say: reply.then };
    return item;
  }

  /** Streams `text` as a tone of proportional length with transcript pieces beside it, until done or cancelled. */
  private async speak(response: ActiveResponse, text: string): Promise<Record<string, unknown>> {
    const { msPerCharacter, chunkMs, speedUp, firstDeltaDelayMs } = this.options;
    const itemId = newId('item');
    const at = { response_id: response.id, item_id: itemId, output_index: 0, content_index: 0 };
    this.send({ type: 'response.output_item.added', response_id: response.id, output_index: 0, item: { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
    this.send({ type: 'response.content_part.added', ...at, part: { type: 'audio', transcript: '' } });
    this.spokenMs.set(itemId, 0);
    const chunks = Math.max(1, Math.ceil((text.length * msPerCharacter) / chunkMs));
    let transcript = '';
    const signal = response.cancel.signal;
    await sleep(firstDeltaDelayMs, undefined, { signal }).catch(() => undefined);
    for (let index = 0; index < chunks && !signal.aborted; index++) {
      const piece = text.slice(Math.floor((index * text.length) / chunks), Math.floor(((index + 1) * text.length) / chunks));
      transcript += piece;
      if (piece) this.send({ type: 'response.output_audio_transcript.delta', ...at, delta: piece });
      const audio = tone(chunkMs, index * chunkMs * 24);
      this.send({ type: 'response.output_audio.delta', ...at, delta: Buffer.from(audio.buffer).toString('base64') });
      this.spokenMs.set(itemId, (index + 1) * chunkMs);
      await sleep(chunkMs / speedUp, undefined, { signal }).catch(() => undefined);
    }
    const status = signal.aborted ? 'incomplete' : 'completed';
    this.send({ type: 'response.output_audio.done', ...at });
    this.send({ type: 'response.output_audio_transcript.done', ...at, transcript });
    this.send({ type: 'response.content_part.done', ...at, part: { type: 'audio', transcript } });
    const item = { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status, content: [{ type: 'output_audio', transcript }] };
    this.send({ type: 'response.output_item.done', response_id: response.id, output_index: 0, item });
    return item;
  }
}
