import http from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Logger } from '../logger.ts';
import { closeServer, listen, sendJson, type MediaRoute, type StreamHandler } from './http-server.ts';
import { reportLiveSessions } from './call-heartbeats.ts';
import { endLostCalls } from './lost-calls.ts';
import { createCallGateway } from './media-calls.ts';
import { reportMediaLines } from './media-lines.ts';
import { registerMediaMetrics } from './metrics.ts';
import type { RoleContext, RunningRole } from './role.ts';

/** The largest message a stream accepts; a larger one closes its socket with 1009 (message too big). */
export const maxMessageBytes = 64 * 1024;
/** How long a client gets to answer the closing handshake of a drained session before its socket is cut. */
const closeHandshakeMs = 1000;

/** `/media/echo`: sends back every message, text as text and binary as binary. For clients to test the path. */
function echo(socket: WebSocket): void {
  socket.on('message', (data, isBinary) => socket.send(data as Buffer, { binary: isBinary }));
}

const builtInStreams: Record<string, StreamHandler> = { '/media/echo': echo };

export interface MediaServer extends RunningRole {
  /** `http://host:port` of the listening server (its WebSocket side is the same with `ws:`). */
  url: string;
  /** The sessions open now. */
  sessionCount(): number;
}

function pathOf(request: http.IncomingMessage): string {
  return new URL(request.url ?? '/', 'http://media').pathname;
}

/** Answers an upgrade that will not be served with a plain HTTP status, then closes the socket. */
function refuseUpgrade(socket: Duplex, status: number): void {
  socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * The media gateway: WebSocket streams beside a small HTTP side (`GET /media/health`), tracking every live
 * session. Stopping refuses new upgrades (503), lets sessions end on their own until the deadline, then closes
 * the rest with 1001 (going away), so a carrier or browser knows to reconnect elsewhere.
 */
export async function startMediaServer(options: {
  host: string;
  port: number;
  logger: Logger;
  /** Streams by path, beside the built-in `/media/echo`. */
  streams?: Record<string, StreamHandler>;
  /** HTTP routes by `METHOD path-prefix`, matched on the longest prefix, e.g. `POST /media/calls/`. */
  routes?: Record<string, MediaRoute>;
}): Promise<MediaServer> {
  const logger = options.logger.child({ component: 'media' });
  const streams = { ...builtInStreams, ...options.streams };
  const routes = Object.entries(options.routes ?? {}).sort(([a], [b]) => b.length - a.length);
  const sessions = new Set<WebSocket>();
  let draining = false;
  let onAllEnded: (() => void) | undefined;

  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && pathOf(request) === '/media/health') {
      // 503 while draining, so a load balancer sends new calls to another replica.
      sendJson(response, draining ? 503 : 200, { status: draining ? 'draining' : 'ok', sessions: sessions.size });
      return;
    }
    const key = `${request.method} ${pathOf(request)}`;
    const route = routes.find(([prefix]) => key.startsWith(prefix));
    if (route) return route[1](request, response);
    sendJson(response, 404, { message: 'Not Found.' });
  });

  const upgrades = new WebSocketServer({ noServer: true, maxPayload: maxMessageBytes, clientTracking: false });
  server.on('upgrade', (request: http.IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until the upgrade completes nothing else listens, and an unheard socket error would end the process.
    const onError = (error: Error) => logger.debug({ err: error }, 'media socket failed before the upgrade');
    socket.on('error', onError);
    const path = pathOf(request);
    const handler = streams[path];
    if (draining || !handler) {
      refuseUpgrade(socket, draining ? 503 : 404);
      return;
    }
    upgrades.handleUpgrade(request, socket, head, (session) => {
      socket.off('error', onError);
      sessions.add(session);
      logger.debug({ path, sessions: sessions.size }, 'media session opened');
      session.on('error', (error) => logger.info({ err: error, path }, 'media session failed'));
      session.once('close', (code) => {
        sessions.delete(session);
        logger.debug({ path, code, sessions: sessions.size }, 'media session closed');
        if (sessions.size === 0) onAllEnded?.();
      });
      handler(session, request);
    });
  });

  /** Resolves when no session is left, or at `until`, whichever comes first. */
  const allEnded = (until: number) => new Promise<void>((resolve) => {
    if (sessions.size === 0) return resolve();
    const timer = setTimeout(resolve, Math.max(until - Date.now(), 0));
    onAllEnded = () => {
      clearTimeout(timer);
      resolve();
    };
  });

  await listen(server, options.port, options.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;

  return {
    url: `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`,
    sessionCount: () => sessions.size,
    async stop(deadline) {
      // The listener stays open while sessions drain, so probes and new callers hear 503 rather than nothing.
      draining = true;
      if (sessions.size > 0) logger.info({ sessions: sessions.size }, 'draining media sessions');
      await allEnded(deadline);
      for (const session of sessions) session.close(1001, 'The media gateway is shutting down.');
      await allEnded(Date.now() + closeHandshakeMs);
      for (const session of sessions) session.terminate();
      await closeServer(server, Date.now());
    },
  };
}

/**
 * The media role: the media gateway on MEDIA_PORT, serving calls. It reports its lines (media-lines.ts) and its
 * live sessions (call-heartbeats.ts); starting, it ends the calls an earlier run at its address held, since it
 * holds none of them (lost-calls.ts).
 */
export async function start(ctx: RoleContext): Promise<MediaServer> {
  registerMediaMetrics({ registry: ctx.metrics });
  const startedAt = new Date();
  // The replica's own address is known once it listens; the gateway asks for it when a call starts.
  let ownUrl = '';
  const calls = createCallGateway(ctx, () => ctx.config.media.internalUrl ?? ownUrl);
  const server = await startMediaServer({
    host: ctx.config.host, port: ctx.config.media.port, logger: ctx.logger, streams: calls.streams, routes: calls.routes,
  });
  ownUrl = server.url;
  const { knex } = ctx.database;
  const lost = { knex, temporal: ctx.temporal, logger: ctx.logger };
  void endLostCalls(lost, { sessionUrl: ctx.config.media.internalUrl ?? ownUrl, seenBefore: startedAt })
    .then((ended) => ended > 0 && ctx.logger.warn({ calls: ended }, 'ended the calls an earlier run of this media gateway held'))
    .catch((error: unknown) => ctx.logger.warn({ err: error }, 'could not end the calls an earlier run of this media gateway held'));
  // A replica is there to take calls: its synthesizer's voices load now, not while its first callees wait.
  ctx.providers.tts.default.warmUp?.().catch((error: unknown) => ctx.logger.warn({ err: error }, 'the synthesizer could not be warmed up'));
  ctx.providers.turn?.warmUp?.().catch((error: unknown) => ctx.logger.warn({ err: error }, 'the turn model could not be warmed up'));
  const report = await reportMediaLines(knex, { maxCalls: ctx.config.media.maxCalls, liveCalls: calls.liveCalls, logger: ctx.logger });
  calls.watchLiveCalls(() => report.changed());
  const heartbeats = reportLiveSessions(knex, { liveCalls: calls.liveCallIds, logger: ctx.logger });
  return {
    ...server,
    async stop(deadline) {
      // Withdrawn first: no campaign dials for this replica while it drains.
      await report.stop();
      await server.stop(deadline);
      await heartbeats.stop();
    },
  };
}
