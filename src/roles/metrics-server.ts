import { createHash, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { Registry } from 'prom-client';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { closeServer, listen, sendJson } from './http-server.ts';

export interface MetricsServer {
  /** Where it listens: `host:port`. */
  address: string;
  stop(deadline: number): Promise<void>;
}

/**
 * `GET /metrics` of the process's registry on METRICS_PORT, a port of its own so a proxy in front of the API
 * can never expose it; with METRICS_TOKEN set, only to a scraper presenting it as a bearer token. Anything
 * else is a 404; a wrong or missing token a 401.
 */
export async function startMetricsServer(config: Config, registry: Registry, logger: Logger): Promise<MetricsServer | undefined> {
  const { port, host, token } = config.metrics;
  if (port === undefined) return undefined;
  const server = http.createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    if (request.method !== 'GET' || path !== '/metrics') return sendJson(response, 404, { message: 'Not Found.' });
    if (token !== undefined && !sameSecret(/^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '', token)) {
      return sendJson(response, 401, { message: 'Unauthenticated.' });
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': registry.contentType }).end(text),
      (error: unknown) => {
        logger.error({ err: error }, 'could not collect the metrics');
        sendJson(response, 500, { message: 'The metrics could not be collected.' });
      },
    );
  });
  await listen(server, port, host);
  const bound = server.address();
  return { address: `${host}:${typeof bound === 'object' && bound ? bound.port : port}`, stop: (deadline) => closeServer(server, deadline) };
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
