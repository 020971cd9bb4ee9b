import { EventEmitter, once } from 'node:events';
import http from 'node:http';
import busboy from 'busboy';
import { listenOnLoopback } from '../support/ports.ts';

/** One scripted answer: audio to stream (synthesis), words (transcription), or an HTTP failure. */
export type FakeSpeechAnswer = { samples: Int16Array } | { text: string } | { status: number; error: string };

export interface FakeSpeechRequest {
  endpoint: 'openai-speech' | 'openai-transcription' | 'elevenlabs';
  headers: http.IncomingHttpHeaders;
  /** ElevenLabs: the voice of the path and the query. */
  voice?: string;
  query: URLSearchParams;
  /** The JSON body (synthesis) or the form fields (transcription). */
  body: Record<string, unknown>;
  /** Transcription: the uploaded WAV's samples. */
  audio?: { sampleRate: number; samples: Int16Array };
}

export interface FakeSpeechServer {
  /** For OPENAI_STT_BASE_URL and OPENAI_TTS_BASE_URL (ends in `/v1`). */
  openaiBaseUrl: string;
  /** For ELEVENLABS_URL. */
  elevenLabsUrl: string;
  openaiKey: string;
  elevenLabsKey: string;
  requests: FakeSpeechRequest[];
  /** Queues answers, used in order; `respond` decides when the queue is empty; otherwise a tone or empty words. */
  script(...answers: FakeSpeechAnswer[]): void;
  respond(decide: (request: FakeSpeechRequest) => FakeSpeechAnswer | undefined): void;
  /** Delay before the response starts (synthesis: before the first audio byte). */
  firstByteDelayMs: number;
  /** Bytes per chunk of streamed audio; odd by default, so samples straddle chunks as they do on the wire. */
  chunkBytes: number;
  /** Delay between two chunks of streamed audio. */
  chunkIntervalMs: number;
  /** Resolves with the next request whose client leaves before the answer is complete. */
  nextAbort(): Promise<FakeSpeechRequest>;
  close(): Promise<void>;
}

/** The default voice: a 440 Hz tone, 50 ms per character of text. */
export function tone(sampleRate: number, ms: number): Int16Array {
  const samples = new Int16Array(Math.round((sampleRate * ms) / 1000));
  for (let i = 0; i < samples.length; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / sampleRate));
  return samples;
}

/** The samples of a PCM16 mono RIFF/WAVE file, or why it is not one. */
function parseWav(file: Buffer): { sampleRate: number; samples: Int16Array } | string {
  if (file.length < 44 || file.toString('ascii', 0, 4) !== 'RIFF' || file.toString('ascii', 8, 12) !== 'WAVE') return 'not a RIFF/WAVE file';
  let offset = 12;
  let format: { sampleRate: number; channels: number; bits: number; code: number } | undefined;
  while (offset + 8 <= file.length) {
    const id = file.toString('ascii', offset, offset + 4);
    const size = file.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = { code: file.readUInt16LE(body), channels: file.readUInt16LE(body + 2), sampleRate: file.readUInt32LE(body + 4), bits: file.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!format || format.code !== 1 || format.channels !== 1 || format.bits !== 16) return 'the fake reads PCM16 mono only';
      if (body + size > file.length) return 'the data chunk is longer than the file';
      const bytes = file.subarray(body, body + size);
      const samples = new Int16Array(size >> 1);
      for (let i = 0; i < samples.length; i++) samples[i] = bytes.readInt16LE(i * 2);
      return { sampleRate: format.sampleRate, samples };
    }
    offset = body + size + (size & 1);
  }
  return 'no data chunk';
}

function readForm(req: http.IncomingMessage): Promise<{ fields: Record<string, string>; file?: Buffer }> {
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let file: Buffer | undefined;
    const form = busboy({ headers: req.headers });
    form.on('field', (name, value) => { fields[name] = value; });
    form.on('file', (name, stream) => {
      const parts: Buffer[] = [];
      stream.on('data', (part: Buffer) => parts.push(part));
      stream.on('end', () => { if (name === 'file') file = Buffer.concat(parts); });
    });
    form.on('close', () => resolve({ fields, file }));
    form.on('error', reject);
    req.on('close', () => {
      if (!req.complete) reject(new Error('the client left during the upload'));
    });
    req.pipe(form);
  });
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'));
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed as Record<string, unknown> : undefined;
  } catch {
    return undefined;
  }
}

/** Waits `ms`, or less when the response closes first. */
function pause(ms: number, res: http.ServerResponse): Promise<void> {
  if (ms <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    res.once('close', done);
  });
}

/** Resolves when the response can take more, or has closed. */
function drained(res: http.ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/** Each provider's error body: OpenAI `{error:{…}}`, ElevenLabs `{detail:{status, message}}`. */
function fail(res: http.ServerResponse, endpoint: FakeSpeechRequest['endpoint'], status: number, message: string, code: string | null = null): void {
  const body = endpoint === 'elevenlabs'
    ? { detail: { status: code ?? 'error', message } }
    : { error: { message, type: status === 401 ? 'invalid_request_error' : status >= 500 ? 'server_error' : 'invalid_request_error', param: null, code } };
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** Why a synthesis request would be refused, or undefined. */
function badSynthesis(endpoint: FakeSpeechRequest['endpoint'], body: Record<string, unknown>, query: URLSearchParams): string | undefined {
  if (endpoint === 'elevenlabs') {
    if (typeof body.text !== 'string' || body.text === '') return 'text is required';
    if (!/^pcm_(8000|16000|22050|24000|44100|48000)$/.test(query.get('output_format') ?? '')) return 'the fake streams pcm_* output formats only';
    const settings = (body.voice_settings ?? {}) as Record<string, unknown>;
    if (settings.speed !== undefined && !(typeof settings.speed === 'number' && settings.speed >= 0.7 && settings.speed <= 1.2)) return 'voice_settings.speed must be between 0.7 and 1.2';
    for (const key of ['stability', 'similarity_boost'] as const) {
      if (settings[key] !== undefined && !(typeof settings[key] === 'number' && settings[key] >= 0 && settings[key] <= 1)) return `voice_settings.${key} must be between 0 and 1`;
    }
    // As the service: only Flash and Turbo v2.5 enforce a language, given as ISO 639-1.
    if (body.language_code !== undefined) {
      if (typeof body.language_code !== 'string' || !/^[a-z]{2}$/.test(body.language_code)) return `language_code ${JSON.stringify(body.language_code)} is not an ISO 639-1 code`;
      if (!['eleven_flash_v2_5', 'eleven_turbo_v2_5'].includes(String(body.model_id))) return `Model '${String(body.model_id)}' does not support the language_code parameter`;
    }
    return undefined;
  }
  if (typeof body.model !== 'string') return "you must provide a model parameter";
  if (typeof body.input !== 'string' || body.input === '' || body.input.length > 4096) return 'input must be a string of 1 to 4096 characters';
  if (typeof body.voice !== 'string') return 'voice is required';
  if (body.response_format !== 'pcm') return 'the fake streams response_format pcm only';
  if (body.speed !== undefined && !(typeof body.speed === 'number' && body.speed >= 0.25 && body.speed <= 4)) return 'speed must be between 0.25 and 4';
  return undefined;
}

/**
 * A local server speaking OpenAI's `/v1/audio/speech` and `/v1/audio/transcriptions` and ElevenLabs'
 * `/v1/text-to-speech/{voice}/stream`: each checks its own credential (Bearer or `xi-api-key`) and body like
 * the service, answers with that service's error shape, and streams raw PCM16 in chunked transfer encoding.
 */
export async function startFakeSpeechServer(options: { openaiKey?: string; elevenLabsKey?: string; firstByteDelayMs?: number } = {}): Promise<FakeSpeechServer> {
  const queue: FakeSpeechAnswer[] = [];
  const requests: FakeSpeechRequest[] = [];
  const aborts = new EventEmitter();
  let decide: ((request: FakeSpeechRequest) => FakeSpeechAnswer | undefined) | undefined;
  const openaiKey = options.openaiKey ?? 'sk-test-openai';
  const elevenLabsKey = options.elevenLabsKey ?? 'test-elevenlabs-key';

  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const voice = /^\/v1\/text-to-speech\/([^/]+)\/stream$/.exec(url.pathname)?.[1];
      const endpoint = voice !== undefined ? 'elevenlabs' as const
        : url.pathname === '/v1/audio/speech' ? 'openai-speech' as const
          : url.pathname === '/v1/audio/transcriptions' ? 'openai-transcription' as const : undefined;
      if (req.method !== 'POST' || !endpoint) return fail(res, 'openai-speech', 404, 'not found');
      if (endpoint === 'elevenlabs' && req.headers['xi-api-key'] !== elevenLabsKey) {
        return req.headers['xi-api-key'] === undefined
          ? fail(res, endpoint, 401, 'Neither authorization header nor xi-api-key received, please provide one.', 'needs_authorization')
          : fail(res, endpoint, 401, 'Invalid API key', 'invalid_api_key');
      }
      if (endpoint !== 'elevenlabs' && req.headers.authorization !== `Bearer ${openaiKey}`) {
        return fail(res, endpoint, 401, 'Incorrect API key provided.', 'invalid_api_key');
      }

      const request: FakeSpeechRequest = { endpoint, headers: req.headers, voice: voice && decodeURIComponent(voice), query: url.searchParams, body: {} };
      // Watched from the start: a client may leave while its body is still arriving.
      res.once('close', () => {
        if (!res.writableFinished) aborts.emit('abort', request);
      });
      if (endpoint === 'openai-transcription') {
        const form = await readForm(req).catch(() => undefined);
        if (!form) return fail(res, endpoint, 400, 'Could not parse multipart form');
        request.body = form.fields;
        if (!form.fields.model) return fail(res, endpoint, 400, 'you must provide a model parameter');
        if (form.fields.language !== undefined && !/^[a-z]{2}$/.test(form.fields.language)) {
          return fail(res, endpoint, 400, `Invalid language '${form.fields.language}'. Language parameter must be specified in ISO-639-1 format.`);
        }
        if (!['json', 'text', undefined].includes(form.fields.response_format)) return fail(res, endpoint, 400, 'the fake answers json or text only');
        const audio = form.file ? parseWav(form.file) : 'file is required';
        if (typeof audio === 'string') return fail(res, endpoint, 400, `Invalid file format: ${audio}`);
        request.audio = audio;
      } else {
        const body = await readJson(req);
        if (!body) return fail(res, endpoint, 400, 'the body must be a JSON object');
        request.body = body;
        const problem = badSynthesis(endpoint, body, url.searchParams);
        if (problem) return fail(res, endpoint, 400, problem);
      }
      requests.push(request);

      const answer = queue.shift() ?? decide?.(request);
      await pause(fake.firstByteDelayMs, res);
      if (res.destroyed) return;
      if (answer && 'status' in answer) return fail(res, endpoint, answer.status, answer.error);
      if (endpoint === 'openai-transcription') {
        const text = answer && 'text' in answer ? answer.text : '';
        if (request.body.response_format === 'text') return res.writeHead(200, { 'content-type': 'text/plain' }).end(text);
        return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ text }));
      }
      const rate = endpoint === 'elevenlabs' ? Number(url.searchParams.get('output_format')!.slice(4)) : 24_000;
      const text = String(endpoint === 'elevenlabs' ? request.body.text : request.body.input);
      const samples = answer && 'samples' in answer ? answer.samples : tone(rate, 50 * text.length);
      const bytes = Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength);
      res.writeHead(200, { 'content-type': 'audio/pcm', 'transfer-encoding': 'chunked' });
      for (let offset = 0; offset < bytes.length; offset += fake.chunkBytes) {
        if (offset > 0) await pause(fake.chunkIntervalMs, res);
        if (res.destroyed) return;
        if (!res.write(bytes.subarray(offset, offset + fake.chunkBytes))) await drained(res);
      }
      res.end();
    })();
  });
  const listening = await listenOnLoopback(server);
  const fake: FakeSpeechServer = {
    openaiBaseUrl: `${listening.url}/v1`,
    elevenLabsUrl: listening.url,
    openaiKey,
    elevenLabsKey,
    requests,
    script: (...answers) => { queue.push(...answers); },
    respond: (fn) => { decide = fn; },
    firstByteDelayMs: options.firstByteDelayMs ?? 0,
    chunkBytes: 1023,
    chunkIntervalMs: 0,
    nextAbort: async () => ((await once(aborts, 'abort')) as [FakeSpeechRequest])[0],
    close: listening.close,
  };
  return fake;
}
