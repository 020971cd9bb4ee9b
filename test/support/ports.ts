import type http from 'node:http';
import net from 'node:net';

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (address && typeof address === 'object') resolve(address.port);
        else reject(new Error('no port'));
      });
    });
  });
}

export interface LoopbackServer {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  /** Stops listening and drops kept-alive connections, so it resolves at once. */
  close: () => Promise<void>;
}

/** Serves `server` on a free port of a loopback address. */
export async function listenOnLoopback(server: http.Server, host = '127.0.0.1'): Promise<LoopbackServer> {
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://${host}:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
