/**
 * A scripted caller on the Twilio Media Streams protocol, as a carrier or the browser speaks it: it sends
 * `connected` and `start`, then a `media` frame every 20 ms in real time (silence unless it is saying
 * something), and plays what it receives in real time: audio frames in order, each mark echoed when the
 * audio before it has played, and on `clear` the queue dropped and its pending marks echoed at once.
 * Everything received and played is recorded with its time (performance.now()).
 */
import { once } from 'node:events';
import WebSocket from 'ws';
import { MediaStreamAudio } from '../../src/voice/serializers/media-audio.ts';
import type { MediaFormat } from '../../src/voice/serializers/twilio.ts';

export const MULAW_8K: MediaFormat = { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 };
export const L16_16K: MediaFormat = { encoding: 'audio/x-l16', sampleRate: 16000, channels: 1 };

const FRAME_SAMPLES = 320;

export interface ReceivedMessage {
  at: number;
  event: string;
  /** Raw payload bytes of a media message. */
  bytes?: number;
  name?: string;
  /** A `transcript` event's line (Parley's extension for web calls). */
  transcript?: { role: 'assistant' | 'user'; text: string };
}

export interface MediaStreamClient {
  streamSid: string;
  received: ReceivedMessage[];
  /** Times at which played frames held sound (not silence), one per 20 ms frame played. */
  playedSound: number[];
  /** Every frame played, in order (PCM16 at 16 kHz, 20 ms each). */
  played: Int16Array[];
  /** Marks echoed back, with when. */
  echoed: { name: string; at: number }[];
  /** Sends start (with the format and parameters) after connected. */
  start(customParameters?: Record<string, string>): void;
  /** Says `samples` (PCM16, 16 kHz) in real time; resolves when the last frame is sent, with the first frame's time. */
  say(samples: Int16Array): Promise<number>;
  sendRaw(message: unknown): void;
  /** Presses keys on the keypad: a `dtmf` message per key, as Twilio sends them. */
  press(keys: string): void;
  stop(): void;
  close(): void;
  /** Stops reading the socket (nor answering its closing handshake), as a client that hangs does. */
  stopReading(): void;
  /** Resolves with the close code and reason. */
  closed: Promise<{ code: number; reason: string }>;
  /** Resolves once `predicate` holds, checking on every message; rejects after `timeoutMs`. */
  waitFor(predicate: () => boolean, timeoutMs?: number, what?: string): Promise<void>;
}

export async function connectMediaStream(url: string, format: MediaFormat): Promise<MediaStreamClient> {
  const socket = new WebSocket(url);
  await once(socket, 'open');
  const streamSid = `MZ${Math.random().toString(16).slice(2).padEnd(32, '0')}`;
  const sender = new MediaStreamAudio(format);
  const receiver = new MediaStreamAudio(format);
  const received: ReceivedMessage[] = [];
  const playedSound: number[] = [];
  const played: Int16Array[] = [];
  const echoed: { name: string; at: number }[] = [];
  /** Audio to play, in 20 ms frames, and marks in between. */
  const playback: ({ samples: Int16Array } | { mark: string })[] = [];
  let pendingSamples = new Int16Array(0);
  const speech: { frame: Int16Array; onSent?: (at: number) => void }[] = [];
  let sequence = 1;
  let chunk = 0;
  let started = false;
  let sayDone: (() => void)[] = [];
  const waiters = new Set<() => void>();

  const send = (message: unknown) => {
    if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
  };
  const echo = (name: string) => {
    echoed.push({ name, at: performance.now() });
    send({ event: 'mark', sequenceNumber: String(++sequence), streamSid, mark: { name } });
  };

  socket.on('message', (data) => {
    const message = JSON.parse((data as Buffer).toString('utf8')) as {
      event: string; media?: { payload: string }; mark?: { name: string }; transcript?: { role: 'assistant' | 'user'; text: string };
    };
    const at = performance.now();
    if (message.event === 'media' && message.media) {
      const bytes = Buffer.from(message.media.payload, 'base64');
      received.push({ at, event: 'media', bytes: bytes.length });
      const samples = receiver.decode(message.media.payload);
      const joined = new Int16Array(pendingSamples.length + samples.length);
      joined.set(pendingSamples);
      joined.set(samples, pendingSamples.length);
      let offset = 0;
      for (; offset + FRAME_SAMPLES <= joined.length; offset += FRAME_SAMPLES) playback.push({ samples: joined.slice(offset, offset + FRAME_SAMPLES) });
      pendingSamples = joined.slice(offset);
    } else if (message.event === 'mark' && message.mark) {
      received.push({ at, event: 'mark', name: message.mark.name });
      playback.push({ mark: message.mark.name });
    } else if (message.event === 'transcript' && message.transcript) {
      received.push({ at, event: 'transcript', transcript: { role: message.transcript.role, text: message.transcript.text } });
    } else {
      received.push({ at, event: message.event });
      if (message.event === 'clear') {
        for (const item of playback.splice(0)) if ('mark' in item) echo(item.mark);
        pendingSamples = new Int16Array(0);
      }
    }
    for (const waiter of waiters) waiter();
  });

  // One tick every 20 ms, on a timeline from the start: send a microphone frame, play a speaker frame.
  const origin = performance.now();
  let ticks = 0;
  let timer: NodeJS.Timeout | undefined;
  const tick = () => {
    ticks++;
    if (started) {
      const next = speech.shift();
      const frame = next?.frame ?? new Int16Array(FRAME_SAMPLES);
      next?.onSent?.(performance.now());
      for (const payload of sender.encode(frame)) {
        send({ event: 'media', sequenceNumber: String(++sequence), streamSid, media: { track: 'inbound', chunk: String(++chunk), timestamp: String(chunk * 20), payload } });
      }
      if (speech.length === 0) {
        for (const resolve of sayDone) resolve();
        sayDone = [];
      }
    }
    while (playback[0] && 'mark' in playback[0]) echo((playback.shift() as { mark: string }).mark);
    const item = playback.shift();
    if (item && 'samples' in item) {
      played.push(item.samples);
      if (item.samples.some((sample) => Math.abs(sample) > 300)) playedSound.push(performance.now());
      while (playback[0] && 'mark' in playback[0]) echo((playback.shift() as { mark: string }).mark);
    }
    timer = setTimeout(tick, Math.max(origin + (ticks + 1) * 20 - performance.now(), 0));
  };
  timer = setTimeout(tick, 20);

  const closed = new Promise<{ code: number; reason: string }>((resolve) => {
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      // Speech the far end hung up on is over: what was still to be said is never sent.
      speech.length = 0;
      for (const resolve of sayDone) resolve();
      sayDone = [];
      for (const waiter of waiters) waiter();
      resolve({ code, reason: reason.toString() });
    });
  });

  send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
  return {
    streamSid,
    received,
    playedSound,
    played,
    echoed,
    start(customParameters = {}) {
      send({
        event: 'start', sequenceNumber: String(++sequence), streamSid,
        start: { streamSid, accountSid: 'AC00000000000000000000000000000000', callSid: 'CA00000000000000000000000000000000', tracks: ['inbound'], customParameters, mediaFormat: format },
      });
      started = true;
    },
    say(samples) {
      let first = 0;
      for (let offset = 0; offset < samples.length; offset += FRAME_SAMPLES) {
        const frame = new Int16Array(FRAME_SAMPLES);
        frame.set(samples.subarray(offset, offset + FRAME_SAMPLES));
        speech.push(offset === 0 ? { frame, onSent: (at) => { first = at; } } : { frame });
      }
      return new Promise((resolve) => sayDone.push(() => resolve(first)));
    },
    sendRaw: (message) => socket.send(typeof message === 'string' ? message : JSON.stringify(message)),
    press(keys) {
      for (const digit of keys) send({ event: 'dtmf', sequenceNumber: String(++sequence), streamSid, dtmf: { track: 'inbound_track', digit } });
    },
    stop() {
      send({ event: 'stop', sequenceNumber: String(++sequence), streamSid, stop: { accountSid: 'AC00000000000000000000000000000000', callSid: 'CA00000000000000000000000000000000' } });
    },
    close: () => socket.close(),
    // `ws` reads the socket through its 'data' listener: without it, nothing received is heard, a close included.
    stopReading: () => void (socket as unknown as { _socket: { removeAllListeners(event: string): void } })._socket.removeAllListeners('data'),
    closed,
    waitFor(predicate, timeoutMs = 5000, what = 'condition') {
      if (predicate()) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate()) return;
          clearTimeout(deadline);
          waiters.delete(check);
          resolve();
        };
        const deadline = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${what}`));
        }, timeoutMs);
        waiters.add(check);
        const poll = setInterval(() => {
          if (!waiters.has(check)) clearInterval(poll);
          else check();
        }, 10);
      });
    },
  };
}
