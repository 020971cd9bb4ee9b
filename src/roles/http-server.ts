import type http from 'node:http';
import type { WebSocket } from 'ws';

/**
 * What one kind of stream does with a socket once upgraded; the socket is a live session until it closes. The
 * request is the upgrade's (its query carries a web call's credential).
 */
export type StreamHandler = (socket: WebSocket, request: http.IncomingMessage) => void;

/** An HTTP route of the gateway beside its streams (the internal hang-up control); answers the response itself. */
export type MediaRoute = (request: http.IncomingMessage, response: http.ServerResponse) => void;

/** Listens on `host:port`, rejecting (EADDRINUSE, say) instead of emitting an unhandled error. */
export function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/**
 * Stops accepting connections and closes the idle ones at once; requests in flight may finish until
 * `deadline`, when their connections are cut (which aborts their handlers' signals).
 */
export async function closeServer(server: http.Server, deadline: number): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const cut = setTimeout(() => server.closeAllConnections(), Math.max(deadline - Date.now(), 0));
  try {
    await closed;
  } finally {
    clearTimeout(cut);
  }
}

/** A JSON answer from a plain node:http handler (the media gateway's small HTTP side). */
export function sendJson(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}
