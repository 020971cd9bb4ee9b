import type http from 'node:http';
import type { WebSocket } from 'ws';
import { unauthenticatedSockets, unauthenticatedSocketsClosed } from '../lib/metrics.ts';

/**
 * How many sockets may wait to prove whose call they carry (their `start` with a credential), in total and
 * per client address, and for how long. A real caller sends `start` within milliseconds of connecting (a
 * carrier at once, the browser as its socket opens), so these bound only what sits there without it.
 */
interface WaitingLimits {
  total: number;
  perAddress: number;
  startMs: number;
}

const DEFAULT_WAITING_LIMITS: WaitingLimits = { total: 256, perAddress: 32, startMs: 2000 };

/** How long a closed socket gets to answer the closing handshake before it is cut. */
const CLOSE_HANDSHAKE_MS = 1000;

/** A socket in the waiting room; `started` takes it out when its `start` arrives (whatever its credential). */
export interface WaitingSocket {
  started(): void;
}

interface Waiting {
  address: string;
  timer: NodeJS.Timeout;
}

/**
 * The media gateway's waiting room: sockets that have connected but not yet sent `start`. They hold no line
 * (a line is taken only once the stream's credential verifies), and there are only so many of them: past
 * `perAddress` for one address, or `total` for all, the oldest waiting socket (of that address, or of all) is
 * closed to make room, so whoever keeps sockets open without starting them pushes out only their own, and a
 * real caller, who starts at once, always gets in. One that has not started within `startMs` is closed. Each
 * closing is counted by its reason (`parley_media_unauthenticated_closed_total`).
 */
export function createWaitingRoom(limits: WaitingLimits = DEFAULT_WAITING_LIMITS) {
  // In order of arrival: the first entry is the oldest.
  const waiting = new Map<WebSocket, Waiting>();
  const byAddress = new Map<string, Set<WebSocket>>();

  function leave(socket: WebSocket): Waiting | undefined {
    const entry = waiting.get(socket);
    if (!entry) return undefined;
    clearTimeout(entry.timer);
    waiting.delete(socket);
    const sockets = byAddress.get(entry.address);
    sockets?.delete(socket);
    if (sockets?.size === 0) byAddress.delete(entry.address);
    unauthenticatedSockets.set(waiting.size);
    return entry;
  }

  function shut(socket: WebSocket, reason: 'timeout' | 'displaced'): void {
    if (!leave(socket)) return;
    unauthenticatedSocketsClosed.inc({ reason });
    if (reason === 'timeout') socket.close(1008, 'No start message arrived in time.');
    else socket.close(1013, 'Too many connections are waiting to start. Please try again.');
    const cut = setTimeout(() => socket.terminate(), CLOSE_HANDSHAKE_MS);
    cut.unref();
    socket.once('close', () => clearTimeout(cut));
  }

  return {
    /** Takes a newly connected socket in, making room first when the address or the room is full. */
    enter(socket: WebSocket, address: string): WaitingSocket {
      const own = byAddress.get(address);
      if (own && own.size >= limits.perAddress) shut(own.values().next().value as WebSocket, 'displaced');
      if (waiting.size >= limits.total) shut(waiting.keys().next().value as WebSocket, 'displaced');
      const timer = setTimeout(() => shut(socket, 'timeout'), limits.startMs);
      timer.unref();
      waiting.set(socket, { address, timer });
      byAddress.set(address, (byAddress.get(address) ?? new Set()).add(socket));
      unauthenticatedSockets.set(waiting.size);
      socket.once('close', () => leave(socket));
      return { started: () => void leave(socket) };
    },
  };
}

/** Counts a stream whose `start` carried a credential that does not verify. */
export function countRefusedCredential(): void {
  unauthenticatedSocketsClosed.inc({ reason: 'refused' });
}

/**
 * The client address a socket's limits count against: the socket's peer, or with TRUST_PROXY the first address
 * of `X-Forwarded-For`, as the API reads it (Koa's `proxy`).
 */
export function clientAddress(request: http.IncomingMessage, trustProxy: boolean): string {
  const forwarded = trustProxy ? request.headers['x-forwarded-for'] : undefined;
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(',')[0]?.trim();
  return first || request.socket.remoteAddress || 'unknown';
}
