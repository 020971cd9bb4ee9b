/**
 * The SIP gateway's figures, on calls from baresip callers to a trunk number answered by an assistant:
 *
 *   npm run bench:sip -- [--calls 20] [--seconds 20] [--flood-pps 5000]
 *
 * Runs the whole platform in this process (bench/sip/setup.ts: the sip role and its Go gateway, the media role
 * on the voice benches' speech and model fakes, so the gateway's own work is what is measured), one call alone
 * (the baseline) and then `--calls` at once, each `--seconds` long (the caller speaks a line, then listens).
 * For each it prints:
 * - setup: from the caller's INVITE to its answer, per call (admission included: the trunk's lookup, the call
 *   record and its workflow), and calls set up per second (the calls over the time from the first INVITE to
 *   the last answer);
 * - answer → greeting: from the answer to the first RTP packet with sound the gateway sent (the greeting);
 * - jitter: how far from its 20 ms schedule each packet to a caller was sent (the p99 of each call; their
 *   median and worst), and the worst interarrival jitter the callers reported in RTCP (RFC 3550);
 * - CPU of the gateway process per call, as a share of one core (its CPU time over the calls' talk time).
 * The same level runs again while a scanner floods the gateway with INVITEs to unknown numbers from one address
 * (`--flood-pps`, 5000): the guard drops them at the socket, so the calls should not notice. The ratios compare
 * the level with the baseline of the same run, and the flooded level with the level. The machine may be shared: the load average
 * is printed with the figures.
 */
import dgram from 'node:dgram';
import os from 'node:os';
import { parseArgs } from 'node:util';
import type { Baresip } from '../test/support/baresip.ts';
import { percentile } from './percentile.ts';
import { cpuSeconds, gatewayPid, startSipBench, type CallMediaLine } from './sip/setup.ts';

const { values } = parseArgs({ options: { calls: { type: 'string', default: '20' }, seconds: { type: 'string', default: '20' }, 'flood-pps': { type: 'string', default: '5000' } } });
const level = Number(values.calls);
const seconds = Number(values.seconds);
const floodPps = Number(values['flood-pps']);

/**
 * A SIP scanner: INVITEs to numbers that do not exist from one address, `pps` a second, until stopped; how many
 * it sent.
 */
function flood(port: number, pps: number): { stop: () => Promise<number> } {
  const socket = dgram.createSocket('udp4');
  let sent = 0;
  let running = true;
  socket.bind(0, '127.0.2.1');
  const invite = (n: number) => Buffer.from([
    `INVITE sip:${100 + (n % 900)}@127.0.0.1:${port} SIP/2.0`, `Via: SIP/2.0/UDP 127.0.2.1:5060;branch=z9hG4bK${n}`, `From: <sip:scanner@127.0.2.1>;tag=${n}`,
    `To: <sip:${100 + (n % 900)}@127.0.0.1>`, `Call-ID: ${n}@scanner`, 'CSeq: 1 INVITE', 'Contact: <sip:scanner@127.0.2.1>', 'Max-Forwards: 70', 'Content-Length: 0', '', '',
  ].join('\r\n'));
  const tick = setInterval(() => {
    for (let i = 0; i < pps / 100 && running; i++) socket.send(invite(sent++), port, '127.0.0.1');
  }, 10);
  return {
    stop: async () => {
      running = false;
      clearInterval(tick);
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      return sent;
    },
  };
}

const byValue = (a: number, b: number) => a - b;
const sip = await startSipBench({ reply: 'Sure, I can help with that.', heard: 'I would like to book an appointment.' });
let failed = false;

interface Figures {
  calls: number;
  setupMs: number[];
  setupsPerSecond: number;
  greetingMs: number[];
  sendJitterP99Us: number[];
  peerJitterMaxMs: number;
  cpuShare: number;
  load: number;
}

try {
  const line = await sip.wav('caller', [2500, 'Hello, I would like to book an appointment for Tuesday.', Math.max(seconds * 1000 - 6000, 1000)]);
  const trunkId = await sip.trunk({ phone_number: '+4930300000', sip_address: '127.0.1.250', allowed_inbound_ips: ['127.0.1.0/24'] });
  await sip.assistant({ type: 'inbound', phone_number_id: trunkId });
  const callers: Baresip[] = [];
  for (let index = 0; index < level; index++) callers.push(await sip.farEnd({ user: `+4915300000${String(index).padStart(3, '0')}`, audio: line }));

  const measure = async (group: Baresip[]): Promise<Figures> => {
    const pid = gatewayPid();
    if (!pid) throw new Error('the gateway process was not found');
    const known = new Set(sip.mediaLines.map((entry) => entry.callSid));
    const cpuBefore = cpuSeconds(pid);
    const counts = group.map((caller) => caller.events.filter((event) => event.type === 'CALL_CLOSED').length);
    const started = performance.now();
    const answeredAt = await Promise.all(group.map(async (caller, index) => {
      const established = caller.events.filter((event) => event.type === 'CALL_ESTABLISHED').length;
      const dialed = performance.now();
      await caller.command('dial', `sip:+4930300000@127.0.0.1:${sip.port}`);
      await caller.waitFor(() => caller.events.filter((event) => event.type === 'CALL_ESTABLISHED').length > established, 60_000);
      const answered = performance.now();
      await caller.waitFor(() => caller.events.filter((event) => event.type === 'CALL_CLOSED').length > counts[index]!, seconds * 1000 + 60_000);
      return { dialed, answered };
    }));
    const cpu = cpuSeconds(pid) - cpuBefore;
    // The gateway logs each call's media line as the call ends: give the last a moment.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const lines: CallMediaLine[] = sip.mediaLines.filter((entry) => !known.has(entry.callSid));
    const lastAnswer = Math.max(...answeredAt.map((call) => call.answered));
    const talk = lines.reduce((sum, entry) => sum + entry.seconds, 0);
    return {
      calls: group.length,
      setupMs: answeredAt.map((call) => call.answered - call.dialed).sort(byValue),
      setupsPerSecond: group.length / ((lastAnswer - started) / 1000),
      greetingMs: lines.map((entry) => entry.firstSoundMs).filter((ms) => ms > 0).sort(byValue),
      sendJitterP99Us: lines.map((entry) => entry.sendJitterP99Us).sort(byValue),
      peerJitterMaxMs: Math.max(0, ...lines.map((entry) => entry.peerJitterMaxMs)),
      cpuShare: talk > 0 ? cpu / talk : 0,
      load: os.loadavg()[0]!,
    };
  };

  console.log(`SIP bench: calls of ${seconds} s from baresip callers, one alone, then ${level} at once; ${os.availableParallelism()} cores`);
  const baseline = await measure(callers.slice(0, 1));
  const loaded = await measure(callers);
  const scanner = flood(sip.port, floodPps);
  const flooded = await measure(callers);
  const floodedWith = await scanner.stop();
  const ms = (value: number) => `${Math.round(value)} ms`;
  const row = (name: string, figures: Figures) => [
    name.padEnd(9),
    `${figures.calls}`.padStart(5),
    `${ms(percentile(figures.setupMs, 50))} / ${ms(percentile(figures.setupMs, 95))} / ${ms(Math.max(...figures.setupMs))}`.padStart(26),
    figures.setupsPerSecond.toFixed(1).padStart(8),
    `${ms(percentile(figures.greetingMs, 50))} / ${ms(Math.max(...figures.greetingMs))}`.padStart(18),
    `${(percentile(figures.sendJitterP99Us, 50) / 1000).toFixed(1)} / ${(Math.max(...figures.sendJitterP99Us) / 1000).toFixed(1)} ms`.padStart(15),
    `${figures.peerJitterMaxMs} ms`.padStart(9),
    `${(figures.cpuShare * 100).toFixed(2)} %`.padStart(9),
    figures.load.toFixed(1).padStart(6),
  ].join('  ');
  console.log(['level    ', 'calls', 'setup p50 / p95 / max'.padStart(26), 'calls/s'.padStart(8), 'greeting p50 / max'.padStart(18),
    'send p99 med/max'.padStart(15), 'RTCP max'.padStart(9), 'CPU/call'.padStart(9), 'load'.padStart(6)].join('  '));
  console.log(row('alone', baseline));
  console.log(row(`${level} at once`, loaded));
  console.log(row('+ flood', flooded));
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}×` : 'n/a');
  console.log(`against the call alone: setup p95 ${ratio(percentile(loaded.setupMs, 95), percentile(baseline.setupMs, 95))}, ` +
    `greeting max ${ratio(Math.max(...loaded.greetingMs), Math.max(...baseline.greetingMs))}, ` +
    `send jitter p99 (worst call) ${ratio(Math.max(...loaded.sendJitterP99Us), Math.max(...baseline.sendJitterP99Us))}, CPU per call ${ratio(loaded.cpuShare, baseline.cpuShare)}`);
  console.log(`under a scanner's flood (${floodedWith} INVITEs to unknown numbers from one address, ${floodPps} a second) against without: ` +
    `setup p95 ${ratio(percentile(flooded.setupMs, 95), percentile(loaded.setupMs, 95))}, greeting max ${ratio(Math.max(...flooded.greetingMs), Math.max(...loaded.greetingMs))}, ` +
    `send jitter p99 (worst call) ${ratio(Math.max(...flooded.sendJitterP99Us), Math.max(...loaded.sendJitterP99Us))}, CPU per call ${ratio(flooded.cpuShare, loaded.cpuShare)}`);
  for (const [name, figures] of [['without', loaded], ['under the flood', flooded]] as const) {
    if (figures.greetingMs.length < level) {
      failed = true;
      console.log(`${name}: only ${figures.greetingMs.length} of ${level} calls heard a greeting`);
    }
  }
} catch (error) {
  failed = true;
  console.error(error);
} finally {
  await sip.close();
}
process.exit(failed ? 1 : 0);
