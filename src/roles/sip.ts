import http from 'node:http';
import type { Config } from '../config.ts';
import { sipCallStatuses, sipGreetingDelay, metricGroups, registerMetrics } from '../lib/metrics.ts';
import { sipControlToken } from '../lib/sip-control.ts';
import { controlApi } from '../sip/control-api.ts';
import { ensureSipGateway, GatewayProcess, type GatewayReady } from '../sip/gateway-process.ts';
import { admitSipCall, trunksForNumber, type SipInboundRequest } from '../sip/inbound.ts';
import { MAX_SPOKEN_CHARS, speakForLine } from '../sip/line-audio.ts';
import { endCallsOfGateway, recordGatewayStatus, recordGatewayTransfer, recordGatewayWarmTransfer, type StatusNotice, type WarmTransferNotice } from '../sip/status.ts';
import { closeServer, listen } from './http-server.ts';
import type { RoleContext, RunningRole } from './role.ts';

export interface SipRole extends RunningRole {
  /** The control API's base URL (`http://host:port`). */
  url: string;
  /** Where the gateway hears SIP, and the host it advertises. */
  listening: () => GatewayReady | undefined;
  /** The gateway's process id, while it runs. */
  gatewayPid: () => number | undefined;
}

/** The number of the gateway's `trunks` request. */
function numberOf(body: unknown): string {
  const number = (body as { number?: unknown }).number;
  return typeof number === 'string' ? number : '';
}

/** The gateway's environment: its part of the configuration, under the names it reads (src/sip/gateway/main.go). */
function gatewayEnv(config: Config): Record<string, string> {
  const { sip } = config;
  const level = ({ trace: 'debug', debug: 'debug', info: 'info', warn: 'warn' } as Record<string, string>)[config.log.level] ?? 'error';
  return {
    SIP_HOST: sip.host,
    SIP_PORT: String(sip.port),
    ...(sip.publicHost ? { SIP_PUBLIC_HOST: sip.publicHost } : {}),
    RTP_PORT_MIN: String(sip.rtpPortMin),
    RTP_PORT_MAX: String(sip.rtpPortMax),
    ...(sip.tls ? { SIP_TLS_PORT: String(sip.tls.port), SIP_TLS_CERT: sip.tls.cert, SIP_TLS_KEY: sip.tls.key } : {}),
    SIP_UNKNOWN_SOURCE_RATE: String(sip.unknownSourceRate),
    SIP_OUTBOUND_SRTP: sip.outboundSrtp,
    SIP_LOG_LEVEL: level,
  };
}

/**
 * The sip role: Parley's SIP gateway (a Go process of sipgo and diago, src/sip/gateway) as a supervised child,
 * and what it needs of Parley: which trunks own a number, whether a call is admitted (a call record and its
 * workflow, as for any carrier's call), where each call's status goes, speech for what it plays by itself once
 * Parley has left a transferred call, and a control API on SIP_CONTROL_PORT
 * through which the worker places trunk calls and the media role transfers them. Stopping drains: no new calls,
 * and the live ones end on their own until the deadline.
 */
export async function start(ctx: RoleContext): Promise<SipRole> {
  const { config, logger, providers } = ctx;
  const knex = ctx.database.knex;
  registerMetrics(ctx.metrics, metricGroups.sip);
  const binary = ensureSipGateway(config.sip, logger);
  let draining = false;
  let ownUrl = '';
  const gatewayUrl = () => config.sip.internalUrl ?? ownUrl;
  const gateway = new GatewayProcess({ binary, env: gatewayEnv(config), logger });
  const statusDeps = { knex, temporal: ctx.temporal, logger };
  const inboundDeps = {
    knex, temporal: ctx.temporal, logger, secrets: providers.secrets, model: providers.llm, fetch: providers.fetch,
    mediaPublicUrl: () => config.media.publicUrl, gatewayUrl,
  };
  gateway.handle('trunks', async (body) => ({ trunks: await trunksForNumber({ knex, secrets: providers.secrets, logger }, numberOf(body)) }));
  gateway.handle('admit', (body) => admitSipCall(inboundDeps, body as SipInboundRequest));
  gateway.listen('status', (body) => {
    const notice = body as StatusNotice;
    sipCallStatuses.inc({ status: notice.status });
    recordGatewayStatus(statusDeps, notice, (ms) => sipGreetingDelay.observe(ms / 1000))
      .catch((error: unknown) => logger.error({ err: error, callSid: notice.callSid }, 'could not record a SIP call\'s status'));
  });
  gateway.listen('transfer', (body) => {
    recordGatewayTransfer(statusDeps, body as { callSid: string; status: string; duration?: number })
      .catch((error: unknown) => logger.error({ err: error }, 'could not record a SIP transfer\'s outcome'));
  });
  // A warm transfer's steps are recorded in the order told (`connected` before its end).
  let warmSteps = Promise.resolve();
  gateway.listen('warm-transfer', (body) => {
    warmSteps = warmSteps.then(() => recordGatewayWarmTransfer(statusDeps, body as WarmTransferNotice))
      .catch((error: unknown) => logger.error({ err: error }, 'could not record a SIP warm transfer\'s step'));
  });
  gateway.handle('speak', async (body) => {
    const text = (body as { text?: unknown }).text;
    if (typeof text !== 'string' || !text.trim() || text.length > MAX_SPOKEN_CHARS) throw new Error(`speak needs a text of 1 to ${MAX_SPOKEN_CHARS} characters`);
    return { audio: Buffer.from(await speakForLine(providers.tts.default, text)).toString('base64') };
  });
  gateway.onExit = () => endCallsOfGateway(statusDeps, gatewayUrl());

  const server = http.createServer(controlApi({
    knex, logger, secrets: providers.secrets, gateway, sip: config.sip, gatewayUrl,
    token: () => sipControlToken(providers.secrets),
    draining: () => draining,
  }));
  await listen(server, config.sip.controlPort, config.host);
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.sip.controlPort;
  ownUrl = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  // This replica's gateway died with its process last time: the calls it held then are over.
  await endCallsOfGateway(statusDeps, gatewayUrl());
  try {
    const ready = await gateway.start();
    logger.info({ ...ready, control: ownUrl }, 'the SIP gateway is listening');
  } catch (error) {
    await closeServer(server, Date.now());
    throw error;
  }
  return {
    url: ownUrl,
    listening: () => gateway.listening,
    gatewayPid: () => gateway.pid,
    async stop(deadline) {
      draining = true;
      try {
        await gateway.ask('drain', { deadlineMs: deadline }, Math.max(deadline - Date.now(), 0) + 5000);
      } catch (error) {
        logger.warn({ err: error }, 'the SIP gateway did not drain');
      }
      await gateway.stop();
      await closeServer(server, Date.now());
      await endCallsOfGateway(statusDeps, gatewayUrl());
    },
  };
}
