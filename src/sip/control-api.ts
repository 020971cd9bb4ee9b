import { createHash, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { Knex } from 'knex';
import { RejectedError } from '../lib/errors.ts';
import type { Logger } from '../logger.ts';
import { SIP_CALL_SID } from '../providers/telephony/sip-trunks.ts';
import { sendJson } from '../roles/http-server.ts';
import { placeSipCall, transferSipCall, warmTransferSipCall, type SipDialRequest, type SipOutboundDeps, type SipWarmTransfer } from './outbound.ts';

/** The longest text of a warm transfer (a briefing longer than the gateway says is cut). */
const maxTextChars = 20_000;

/** The largest request body the control API reads. */
const maxBodyBytes = 128 * 1024;

export interface ControlApiDeps extends SipOutboundDeps {
  knex: Knex;
  logger: Logger;
  /** The deployment's sip control token (lib/sip-control.ts). */
  token: () => string;
  /** Whether the replica is stopping (its health answers 503, and it places no new calls). */
  draining: () => boolean;
}

class BadRequest extends Error {}

async function readJson(request: http.IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBodyBytes) throw new BadRequest('The body is too large.');
    chunks.push(chunk as Buffer);
  }
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new BadRequest('The body must be a JSON object.');
    return parsed as Record<string, unknown>;
  } catch (error) {
    throw error instanceof BadRequest ? error : new BadRequest('The body is not JSON.');
  }
}

function dialRequestOf(body: Record<string, unknown>): SipDialRequest {
  const { callId, from, to, stream, ringTimeoutSeconds, attempt } = body as Partial<SipDialRequest>;
  const okStream = typeof stream === 'object' && stream !== null && typeof stream.url === 'string' && typeof stream.parameters === 'object' && stream.parameters !== null;
  const okAttempt = typeof attempt === 'object' && attempt !== null && typeof attempt.key === 'string' && attempt.key.length > 0 && attempt.key.length <= 255;
  if (!Number.isSafeInteger(callId) || typeof from !== 'string' || typeof to !== 'string' || !okStream || !okAttempt
    || !Number.isInteger(ringTimeoutSeconds) || (ringTimeoutSeconds as number) < 1 || (ringTimeoutSeconds as number) > 600) {
    throw new BadRequest('Expected {callId, from, to, stream: {url, parameters}, ringTimeoutSeconds, attempt: {key, since, retried}}.');
  }
  return body as unknown as SipDialRequest;
}

function warmTransferOf(body: Record<string, unknown>): SipWarmTransfer {
  const { to, callerId, ringTimeoutSeconds, holdMusicVolume, briefing, connectedMessage } = body as Partial<SipWarmTransfer>;
  const text = (value: unknown, max: number) => typeof value === 'string' && value.length <= max;
  if (!text(to, 255) || !to || !text(callerId, 32) || !Number.isInteger(ringTimeoutSeconds) || (ringTimeoutSeconds as number) < 1 || (ringTimeoutSeconds as number) > 600
    || !(holdMusicVolume === null || (Number.isInteger(holdMusicVolume) && (holdMusicVolume as number) >= 0 && (holdMusicVolume as number) <= 100))
    || !text(briefing, maxTextChars) || !text(connectedMessage, maxTextChars)) {
    throw new BadRequest('Expected {to, callerId, ringTimeoutSeconds, holdMusicVolume (0-100 or null), briefing, connectedMessage}.');
  }
  return body as unknown as SipWarmTransfer;
}

function sameSecret(presented: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}

/**
 * The sip role's control API, for the platform's own processes: `POST /sip/calls` places a trunk call (the
 * worker's dial), `POST /sip/calls/<sid>/hangup` ends one, `POST /sip/calls/<sid>/transfer` hands one to a number
 * and `POST /sip/calls/<sid>/warm-transfer` holds one for a supervisor (the media role's transfers); `GET
 * /sip/health` says whether the replica takes calls. A request for a call held by another replica is passed on
 * to it, so any replica may be asked. Every route but health needs the deployment's sip control token.
 */
export function controlApi(deps: ControlApiDeps): http.RequestListener {
  async function forward(gatewayUrl: string, path: string, body: unknown, response: http.ServerResponse): Promise<void> {
    const answer = await fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${deps.token()}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(15_000),
    });
    response.writeHead(answer.status, { 'Content-Type': 'application/json; charset=utf-8' }).end(await answer.text());
  }

  async function route(request: http.IncomingMessage, response: http.ServerResponse): Promise<void> {
    const path = new URL(request.url ?? '/', 'http://sip').pathname;
    if (request.method === 'GET' && path === '/sip/health') {
      const ready = !deps.draining() && deps.gateway.listening !== undefined;
      return sendJson(response, ready ? 200 : 503, { status: deps.draining() ? 'draining' : ready ? 'ok' : 'starting' });
    }
    const presented = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!sameSecret(presented, deps.token())) return sendJson(response, 401, { message: 'Unauthenticated.' });
    if (request.method !== 'POST') return sendJson(response, 404, { message: 'Not Found.' });
    const body = await readJson(request);
    if (path === '/sip/calls') {
      if (deps.draining()) return sendJson(response, 503, { message: 'This SIP gateway is shutting down.' });
      return sendJson(response, 200, await placeSipCall(deps, dialRequestOf(body)));
    }
    const match = /^\/sip\/calls\/([^/]+)\/(hangup|transfer|warm-transfer)$/.exec(path);
    if (!match?.[1] || !SIP_CALL_SID.test(match[1])) return sendJson(response, 404, { message: 'Not Found.' });
    const callSid = match[1];
    const call = await deps.knex('sip_calls').where({ callSid }).first<{ callId: number; gatewayUrl: string; endedAt: Date | null } | undefined>('callId', 'gatewayUrl', 'endedAt');
    if (!call || call.endedAt) return sendJson(response, 404, { message: 'No such call is live.' });
    if (call.gatewayUrl !== deps.gatewayUrl()) return forward(call.gatewayUrl, path, body, response);
    if (match[2] === 'hangup') {
      const { found } = await deps.gateway.ask<{ found: boolean }>('hangup', { callSid });
      return sendJson(response, found ? 200 : 404, { found });
    }
    if (match[2] === 'warm-transfer') {
      return sendJson(response, 200, await warmTransferSipCall(deps, { callSid, callId: Number(call.callId) }, warmTransferOf(body)));
    }
    const { to, ringTimeoutSeconds = 30 } = body;
    if (typeof to !== 'string' || to.length === 0 || to.length > 255 || !Number.isInteger(ringTimeoutSeconds) || (ringTimeoutSeconds as number) < 1 || (ringTimeoutSeconds as number) > 600) {
      throw new BadRequest('Expected {to, ringTimeoutSeconds}.');
    }
    await transferSipCall(deps, { callSid, callId: Number(call.callId) }, to, ringTimeoutSeconds as number);
    return sendJson(response, 200, { transferred: true });
  }

  return (request, response) => {
    route(request, response).catch((error: unknown) => {
      if (error instanceof BadRequest) return sendJson(response, 400, { message: error.message });
      if (error instanceof RejectedError) return sendJson(response, 422, { message: error.message });
      deps.logger.error({ err: error, url: request.url }, 'a sip control request failed');
      if (!response.headersSent) sendJson(response, 503, { message: error instanceof Error ? error.message : 'The SIP gateway failed.' });
    });
  };
}
