import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { SipConfig } from '../config.ts';
import type { Logger } from '../logger.ts';

const projectRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const installScript = path.join(projectRoot, 'scripts', 'install-sip-gateway.sh');
const localBinary = path.join(projectRoot, '.tools', 'bin', 'parley-sip');

export class SipGatewayMissingError extends Error {
  override name = 'SipGatewayMissingError';
}

/**
 * The gateway's binary: SIP_GATEWAY_BIN, or `.tools/bin/parley-sip` built (or rebuilt, when its sources
 * changed) by scripts/install-sip-gateway.sh, as the Temporal CLI is installed.
 */
export function ensureSipGateway(config: Pick<SipConfig, 'gatewayBin'>, logger: Logger): string {
  if (config.gatewayBin) {
    if (!fs.existsSync(config.gatewayBin)) throw new SipGatewayMissingError(`SIP_GATEWAY_BIN points at ${config.gatewayBin}, which does not exist.`);
    return config.gatewayBin;
  }
  const result = spawnSync('bash', [installScript], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const said = `${result.stdout}${result.stderr}`.trim();
  if (result.status !== 0 || !fs.existsSync(localBinary)) {
    throw new SipGatewayMissingError(`The SIP gateway could not be built: ${said || `scripts/install-sip-gateway.sh exited with ${result.status}`}`);
  }
  if (said && !said.includes('up to date')) logger.info(said);
  return localBinary;
}

/** What the gateway says when it listens. */
export interface GatewayReady {
  udp: string;
  tcp: string;
  tls?: string;
  publicHost: string;
}

type RequestHandler = (body: unknown) => Promise<unknown>;
type NoticeHandler = (body: unknown) => void;

interface Envelope {
  id?: number;
  re?: number;
  type?: string;
  body?: unknown;
  error?: string;
}

const pinoLevels = { DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/**
 * The gateway as a supervised child process, and the JSON-lines channel over its standard input and output
 * (src/sip/gateway/control.go): requests both ways, answered by id, and notices. Its log lines (JSON on
 * stderr) join this process's log. A gateway that dies is started again a second after `onExit` has settled
 * what it held.
 */
export class GatewayProcess {
  private child: ChildProcessWithoutNullStreams | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, { resolve: (body: unknown) => void; reject: (error: Error) => void }>();
  private readonly handlers = new Map<string, RequestHandler>();
  private readonly noticeHandlers = new Map<string, NoticeHandler>();
  private stopping = false;
  private restartTimer: NodeJS.Timeout | undefined;
  private readyWaiters: ((ready: GatewayReady) => void)[] = [];
  private readonly binary: string;
  private readonly env: Record<string, string>;
  private readonly logger: Logger;
  /** What the running gateway said when it started listening; undefined while it starts. */
  listening: GatewayReady | undefined;
  /** Called when the gateway died unasked, before another is started in its place: its calls are gone. */
  onExit: (() => Promise<unknown>) | undefined;

  constructor(options: { binary: string; env: Record<string, string>; logger: Logger }) {
    this.binary = options.binary;
    this.env = options.env;
    this.logger = options.logger.child({ component: 'sip-gateway' });
  }

  /** Answers the gateway's requests of `type`. */
  handle(type: string, handler: RequestHandler): void {
    this.handlers.set(type, handler);
  }

  /** Hears the gateway's notices of `type`. */
  listen(type: string, handler: NoticeHandler): void {
    this.noticeHandlers.set(type, handler);
  }

  /**
   * Starts the gateway; resolves once it listens, rejects when it exits first (a port in use), and then starts
   * no other: only a gateway that has listened once is started again when it dies.
   */
  start(): Promise<GatewayReady> {
    return new Promise((resolve, reject) => {
      const child = this.spawn();
      const failed = (code: number | null) => {
        this.stopping = true;
        clearTimeout(this.restartTimer);
        reject(new Error(`the SIP gateway exited with ${code} before it listened (see its log above)`));
      };
      child.once('exit', failed);
      this.readyWaiters.push((ready) => {
        child.off('exit', failed);
        resolve(ready);
      });
    });
  }

  /** The gateway's process id, while it runs (the drill kills it). */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Asks the gateway; rejects when it answers with an error, does not answer in time, or is not running. */
  ask<T>(type: string, body: unknown, timeoutMs = 10_000): Promise<T> {
    const child = this.child;
    if (!child || !this.listening) return Promise.reject(new Error('the SIP gateway is not running'));
    const id = ++this.nextId;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`the SIP gateway did not answer ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.write({ id, type, body });
    });
  }

  /** Stops the gateway: closing its input tells it Parley is gone; it is killed if it lingers. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearTimeout(this.restartTimer);
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.stdin.end();
    const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
    await exited;
    clearTimeout(timer);
  }

  private spawn(): ChildProcessWithoutNullStreams {
    const child = spawn(this.binary, [], { env: { PATH: process.env.PATH ?? '', ...this.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.listening = undefined;
    child.stdin.on('error', () => undefined);
    readline.createInterface({ input: child.stdout }).on('line', (line) => this.receive(line));
    readline.createInterface({ input: child.stderr }).on('line', (line) => this.log(line));
    child.once('exit', (code, signal) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error('the SIP gateway exited'));
      this.pending.clear();
      this.listening = undefined;
      if (this.stopping || this.readyWaiters.length > 0) return;
      this.logger.error({ code, signal }, 'the SIP gateway exited: starting it again');
      void Promise.resolve(this.onExit?.())
        .catch((error: unknown) => this.logger.error({ err: error }, 'could not end the calls of the SIP gateway that exited'))
        .finally(() => {
          if (!this.stopping) this.restartTimer = setTimeout(() => this.spawn(), 1000);
        });
    });
    return child;
  }

  private write(message: Envelope): void {
    this.child?.stdin.write(`${JSON.stringify(message)}\n`);
  }

  private receive(line: string): void {
    let message: Envelope;
    try {
      message = JSON.parse(line) as Envelope;
    } catch {
      this.logger.warn({ line: line.slice(0, 200) }, 'the SIP gateway wrote a line that is not JSON');
      return;
    }
    if (message.re !== undefined) {
      const waiter = this.pending.get(message.re);
      this.pending.delete(message.re);
      if (message.error !== undefined) waiter?.reject(new Error(message.error));
      else waiter?.resolve(message.body);
      return;
    }
    if (message.type === 'ready') {
      this.listening = message.body as GatewayReady;
      for (const waiter of this.readyWaiters.splice(0)) waiter(this.listening);
      return;
    }
    if (message.id !== undefined && message.type) return void this.answer(message.id, message.type, message.body);
    if (message.type) this.noticeHandlers.get(message.type)?.(message.body);
  }

  private async answer(id: number, type: string, body: unknown): Promise<void> {
    const handler = this.handlers.get(type);
    try {
      if (!handler) throw new Error(`no handler for ${type}`);
      this.write({ re: id, body: await handler(body) });
    } catch (error) {
      this.logger.error({ err: error, type }, 'a request of the SIP gateway failed');
      this.write({ re: id, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private log(line: string): void {
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      this.logger.info({ line }, 'SIP gateway output');
      return;
    }
    const { level, msg, time: _time, ...fields } = entry;
    const method = pinoLevels[String(level) as keyof typeof pinoLevels] ?? 'info';
    this.logger[method](fields, typeof msg === 'string' ? msg : '');
  }
}
