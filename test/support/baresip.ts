import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';
import { spokenPcm } from './speech.ts';

/**
 * Debian's baresip, a real SIP user agent, as the far end of the SIP gateway's calls: it calls a trunk number
 * (the carrier's side of an inbound call) or answers one (the callee of an outbound call), speaks a WAV file as
 * its microphone (`aufile`; the call ends when the file does, as a caller hanging up), records what it hears
 * (`sndfile`), sends and reports keys as RFC 4733 events, and is driven over `ctrl_tcp` (JSON in netstrings).
 */
export const baresipInstalled = spawnSync('baresip', ['-h'], { stdio: 'ignore' }).error === undefined;
export const baresipSkipReason = 'baresip is not installed: apt-get install baresip-core';

export interface BaresipEvent {
  type: string;
  class?: string;
  param?: string;
  peeruri?: string;
  id?: string;
}

export interface BaresipOptions {
  /** The loopback address and port it listens on (127.0.0.1 and a free port unless given). */
  host?: string;
  port?: number;
  /**
   * The account's user: its calls' From, and the only Request-URI user it takes calls for (baresip answers 404
   * to any other); `aliases` are more users it takes calls for.
   */
  user: string;
  aliases?: string[];
  authUser?: string;
  password?: string;
  /** The WAV (mono, 16-bit, 8 kHz) it speaks from the answer on; the call ends when it ends. */
  audio: string;
  /** Its calls' media encryption: `srtp-mand` offers SDES-keyed SRTP (RTP/SAVP) only, and takes nothing else. */
  mediaenc?: 'srtp-mand';
  /** What it does with a call to it: answer at once, refuse it (486 Busy Here), or let it ring. */
  incoming?: 'answer' | 'refuse' | 'ring';
}

export interface Baresip {
  /** The address it hears SIP at (UDP and TCP). */
  host: string;
  port: number;
  /** Every event it reported, in order. */
  events: BaresipEvent[];
  command(command: string, params?: string): Promise<{ ok: boolean; data: string }>;
  /** Resolves with the first event (past or future) that `match` accepts. */
  waitFor(match: (event: BaresipEvent) => boolean, timeoutMs?: number): Promise<BaresipEvent>;
  /** The keys it received as telephone events, in order. */
  keysReceived(): string;
  /** The recordings of what it heard in its calls (`sndfile`'s decoded side). */
  recordings(): string[];
  close(): Promise<void>;
}

/** A caller's line as a WAV for aufile: silences (ms) and words (espeak-ng) in turn, from the answer on. */
export async function lineWav(file: string, parts: (number | string)[]): Promise<string> {
  const pieces = await Promise.all(parts.map((part) => (typeof part === 'number' ? Promise.resolve(new Int16Array(16 * part)) : spokenPcm(part))));
  const all = new Int16Array(pieces.reduce((n, piece) => n + piece.length, 0));
  let offset = 0;
  for (const piece of pieces) {
    all.set(piece, offset);
    offset += piece.length;
  }
  writeLineWav(file, all);
  return file;
}

/** A WAV of 16-bit mono PCM at 8 kHz, as aufile plays it, from samples at 16 kHz (every other one). */
export function writeLineWav(file: string, samples16k: Int16Array): void {
  const count = Math.floor(samples16k.length / 2);
  const data = Buffer.alloc(count * 2);
  for (let i = 0; i < count; i++) data.writeInt16LE(samples16k[i * 2] ?? 0, i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(8000, 24);
  header.writeUInt32LE(16000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  fs.writeFileSync(file, Buffer.concat([header, data]));
}

export async function startBaresip(options: BaresipOptions): Promise<Baresip> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'parley-baresip-'));
  const host = options.host ?? '127.0.0.1';
  const [port, controlPort] = [options.port ?? await freePortPair(), await freePort()];
  const rtpBase = 40000 + 2 * Math.floor(Math.random() * 10000);
  fs.mkdirSync(path.join(dir, 'heard'));
  fs.writeFileSync(path.join(dir, 'config'), [
    'poll_method epoll',
    `sip_listen ${host}:${port}`,
    'call_local_timeout 120',
    // No sound card: played audio goes to a bridge nobody reads, and sndfile records it on the way.
    'audio_player aubridge,nowhere',
    'audio_alert aubridge,nowhere',
    `audio_source aufile,${options.audio}`,
    'module_path /usr/lib/baresip/modules',
    'module g711.so',
    'module aufile.so',
    'module aubridge.so',
    'module sndfile.so',
    ...(options.mediaenc ? ['module srtp.so'] : []),
    `snd_path ${path.join(dir, 'heard')}`,
    'module_app account.so',
    'module_app menu.so',
    'module_app ctrl_tcp.so',
    `ctrl_tcp_listen 127.0.0.1:${controlPort}`,
    `rtp_ports ${rtpBase}-${rtpBase + 20}`,
    '',
  ].join('\n'));
  const account = [
    `<sip:${options.user}@${host}:${port}>`,
    ...(options.authUser ? [`auth_user=${options.authUser}`] : []),
    ...(options.password ? [`auth_pass=${options.password}`] : []),
    ...(options.mediaenc ? [`mediaenc=${options.mediaenc}`] : []),
    'regint=0',
    `answermode=${options.incoming === 'answer' ? 'auto' : 'manual'}`,
  ].join(';');
  const aliases = (options.aliases ?? []).map((alias) => `<sip:${alias}@${host}:${port}>;regint=0;answermode=auto`);
  fs.writeFileSync(path.join(dir, 'accounts'), [account, ...aliases, ''].join('\n'));

  const child: ChildProcess = spawn('baresip', ['-f', dir], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const socket = await connectWithRetry(controlPort, () => output);
  const events: BaresipEvent[] = [];
  const waiters: { match: (event: BaresipEvent) => boolean; resolve: (event: BaresipEvent) => void }[] = [];
  const answers: ((answer: { ok: boolean; data: string }) => void)[] = [];
  let buffer = Buffer.alloc(0);
  // eslint-disable-next-line prefer-const -- assigned once the object exists; the event handler uses it
  let baresip: Baresip;
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      const colon = buffer.indexOf(':');
      if (colon < 0) return;
      const length = Number(buffer.subarray(0, colon).toString());
      if (buffer.length < colon + 1 + length + 1) return;
      const message = JSON.parse(buffer.subarray(colon + 1, colon + 1 + length).toString()) as Record<string, unknown>;
      buffer = buffer.subarray(colon + 1 + length + 1);
      if (message.response) {
        answers.shift()?.({ ok: message.ok === true, data: typeof message.data === 'string' ? message.data : '' });
      } else if (message.event) {
        const event = message as unknown as BaresipEvent;
        events.push(event);
        // A refusing callee hangs up on each call as it comes in, which baresip answers 486 Busy Here.
        if (options.incoming === 'refuse' && event.type === 'CALL_INCOMING') void baresip.command('hangup');
        for (const waiter of [...waiters]) {
          if (waiter.match(event)) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve(event);
          }
        }
      }
    }
  });

  baresip = {
    host,
    port,
    events,
    command(command, params) {
      const json = JSON.stringify({ command, ...(params === undefined ? {} : { params }), token: String(Date.now()) });
      socket.write(`${Buffer.byteLength(json)}:${json},`);
      return new Promise((resolve) => answers.push(resolve));
    },
    waitFor(match, timeoutMs = 20_000) {
      const seen = events.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`baresip did not report the event waited for within ${timeoutMs} ms; it reported ${events.map((e) => e.type).join(', ')}\n${output.slice(-3000)}`)), timeoutMs);
        waiters.push({ match, resolve: (event) => { clearTimeout(timer); resolve(event); } });
      });
    },
    keysReceived() {
      return events.filter((event) => event.type === 'CALL_DTMF_START').map((event) => event.param ?? '').join('');
    },
    recordings() {
      return fs.readdirSync(path.join(dir, 'heard')).filter((name) => name.endsWith('-dec.wav')).map((name) => path.join(dir, 'heard', name));
    },
    async close() {
      socket.destroy();
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 2000);
      await exited;
      clearTimeout(timer);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
  return baresip;
}

/** A port free on 127.0.0.1 with the one above it free too: baresip listens for SIP over TLS on port + 1. */
export async function freePortPair(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port + 1, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free && port < 65535) return port;
  }
}

async function connectWithRetry(port: number, output: () => string): Promise<net.Socket> {
  const until = Date.now() + 10_000;
  for (;;) {
    try {
      return await new Promise<net.Socket>((resolve, reject) => {
        const socket = net.connect(port, '127.0.0.1', () => resolve(socket));
        socket.once('error', reject);
      });
    } catch (error) {
      if (Date.now() > until) throw new Error(`baresip's control port never opened\n${output()}`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}
