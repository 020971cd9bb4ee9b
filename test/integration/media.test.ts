import { once } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { createLogger } from '../../src/logger.ts';
import { maxMessageBytes, startMediaServer, type MediaServer } from '../../src/roles/media.ts';

const logger = createLogger({ log: { level: 'silent', pretty: false } });

async function connect(server: MediaServer, path = '/media/echo'): Promise<WebSocket> {
  const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}`);
  await once(socket, 'open');
  return socket;
}

/** The next message, with whether it came as binary. */
async function nextMessage(socket: WebSocket): Promise<{ data: Buffer; isBinary: boolean }> {
  const [data, isBinary] = await once(socket, 'message') as [Buffer, boolean];
  return { data, isBinary };
}

async function closeCode(socket: WebSocket): Promise<number> {
  if (socket.readyState === WebSocket.CLOSED) throw new Error('already closed');
  const [code] = await once(socket, 'close') as [number];
  return code;
}

/** The HTTP status an upgrade to `path` is refused with. */
async function refusedUpgrade(server: MediaServer, path: string): Promise<number> {
  const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}${path}`);
  socket.on('error', () => undefined);
  const [, response] = await once(socket, 'unexpected-response') as [unknown, { statusCode: number }];
  socket.terminate();
  return response.statusCode;
}

describe('the media gateway', () => {
  let server: MediaServer | undefined;
  const start = async () => {
    server = await startMediaServer({ host: '127.0.0.1', port: 0, logger });
    return server;
  };
  afterEach(async () => {
    await server?.stop(Date.now());
    server = undefined;
  });

  it('answers its health route with the number of live sessions', async () => {
    const media = await start();
    const before = await fetch(`${media.url}/media/health`);
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual({ status: 'ok', sessions: 0 });
    const socket = await connect(media);
    expect(await (await fetch(`${media.url}/media/health`)).json()).toEqual({ status: 'ok', sessions: 1 });
    socket.close();
    await once(socket, 'close');
    await expect.poll(() => media.sessionCount()).toBe(0);
    expect((await fetch(`${media.url}/media/elsewhere`)).status).toBe(404);
  });

  it('echoes text as text and binary as binary', async () => {
    const socket = await connect(await start());
    socket.send('hello, gateway');
    const text = await nextMessage(socket);
    expect(text).toEqual({ data: Buffer.from('hello, gateway'), isBinary: false });
    const audio = Buffer.from([0xff, 0x7f, 0x00, 0x80, 0x01]);
    socket.send(audio);
    expect(await nextMessage(socket)).toEqual({ data: audio, isBinary: true });
    socket.close();
  });

  it('closes a session that sends a message over the size cap with 1009', async () => {
    const socket = await connect(await start());
    socket.send(Buffer.alloc(maxMessageBytes));
    expect((await nextMessage(socket)).data.length).toBe(maxMessageBytes);
    socket.send(Buffer.alloc(maxMessageBytes + 1));
    expect(await closeCode(socket)).toBe(1009);
  });

  it('refuses an upgrade to a path that serves no stream with 404', async () => {
    expect(await refusedUpgrade(await start(), '/media/nothing')).toBe(404);
  });

  it('on stop, refuses new sessions, lets live ones end until the deadline, then closes them with 1001', async () => {
    const media = await start();
    const socket = await connect(media);
    const closed = closeCode(socket);
    const stopping = Date.now();
    const stopped = media.stop(stopping + 300);

    const health = await fetch(`${media.url}/media/health`);
    expect(health.status).toBe(503);
    expect(await health.json()).toEqual({ status: 'draining', sessions: 1 });
    expect(await refusedUpgrade(media, '/media/echo')).toBe(503);
    socket.send('still here');
    expect((await nextMessage(socket)).data.toString()).toBe('still here');

    expect(await closed).toBe(1001);
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(290);
    await stopped;
    expect(media.sessionCount()).toBe(0);
    server = undefined;
  });

  it('on stop, resolves as soon as the last session ends on its own', async () => {
    const media = await start();
    const socket = await connect(media);
    const stopping = Date.now();
    const stopped = media.stop(stopping + 10_000);
    setTimeout(() => socket.close(1000), 100);
    await stopped;
    expect(Date.now() - stopping).toBeLessThan(5000);
    server = undefined;
  });
});
