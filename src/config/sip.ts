import { ConfigError } from './error.ts';
import type { Reader } from './reader.ts';

/** The SIP gateway (the `sip` role) and how the other processes reach it. */
export interface SipConfig {
  /** Whether `npm start` runs the gateway (SIP_ENABLED); `npm run start:sip` always does. */
  enabled: boolean;
  /** Where SIP is heard, over UDP and TCP; port 0 takes a free one (tests). */
  host: string;
  port: number;
  /**
   * The address written in SDP (`c=`) and in Contact headers: the one carriers reach this machine at, behind NAT
   * its public address. Undefined: the address of the interface SIP_HOST names (or the first one, for 0.0.0.0).
   */
  publicHost: string | undefined;
  /** The UDP ports RTP takes, one pair per call. */
  rtpPortMin: number;
  rtpPortMax: number;
  /** SIP over TLS on its own port, when a certificate and key are given. */
  tls: { port: number; cert: string; key: string } | undefined;
  /** The port trunk addresses are dialed on (they are written without one): 5060 unless a carrier wants another. */
  trunkPort: number;
  /** The role's control API (the dial, hang-up and transfer requests of the worker and the media role). */
  controlPort: number;
  /** Where the platform's processes reach that API (any replica); undefined: `http://127.0.0.1:<controlPort>`. */
  controlUrl: string | undefined;
  /** Where the other sip replicas reach this one's API; undefined: the address it listens on. */
  internalUrl: string | undefined;
  /** The gateway's binary; undefined: `.tools/bin/parley-sip`, built from src/sip/gateway when missing or stale. */
  gatewayBin: string | undefined;
  /** SIP packets per second an unknown source address may send before it is dropped at the socket. */
  unknownSourceRate: number;
  /**
   * What the gateway's own calls (outbound calls, transfer legs) offer: plain RTP, or SRTP with SDES keys
   * (SIP_OUTBOUND_SRTP), for carriers that take nothing else; a trunk has no field of its own for it.
   */
  outboundSrtp: 'off' | 'sdes';
}

export function readSip(read: Reader): SipConfig {
  const rtpPortMin = read.port('RTP_PORT_MIN', 10000);
  const rtpPortMax = read.port('RTP_PORT_MAX', 20000);
  if (rtpPortMax - rtpPortMin < 2) throw new ConfigError('RTP_PORT_MAX', `must be above RTP_PORT_MIN (${rtpPortMin}) by at least 2.`);
  const cert = read.string('SIP_TLS_CERT');
  const key = read.string('SIP_TLS_KEY');
  if ((cert === undefined) !== (key === undefined)) throw new ConfigError(cert === undefined ? 'SIP_TLS_CERT' : 'SIP_TLS_KEY', 'is required with the other: SIP over TLS needs a certificate and its key.');
  return {
    enabled: read.boolean('SIP_ENABLED', true),
    host: read.string('SIP_HOST') ?? '0.0.0.0',
    port: read.integer('SIP_PORT', 5060, 0, 65535),
    publicHost: read.string('SIP_PUBLIC_HOST'),
    rtpPortMin,
    rtpPortMax,
    tls: cert !== undefined && key !== undefined ? { port: read.integer('SIP_TLS_PORT', 5061, 0, 65535), cert, key } : undefined,
    trunkPort: read.port('SIP_TRUNK_PORT', 5060),
    controlPort: read.integer('SIP_CONTROL_PORT', 8082, 0, 65535),
    controlUrl: read.url('SIP_CONTROL_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    internalUrl: read.url('SIP_INTERNAL_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    gatewayBin: read.string('SIP_GATEWAY_BIN'),
    unknownSourceRate: read.integer('SIP_UNKNOWN_SOURCE_RATE', 20, 1, 100_000),
    outboundSrtp: read.oneOf('SIP_OUTBOUND_SRTP', ['off', 'sdes'] as const, 'off'),
  };
}
