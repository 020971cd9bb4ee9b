/**
 * Line-exhaustion drill of the media gateway:
 *
 *   npm run drill:lines -- [--sockets 40] [--calls 8] [--media-max-calls 4]
 *
 * Runs Parley as `npm start` does (bench/calls/parley-process.ts). Two phases of `--calls` real web calls, one
 * after the other (each is created, connects, is greeted, and hangs up): first alone, then while `--sockets`
 * sockets without a credential are held open on `/media/web-call` (reopened as soon as the gateway closes one,
 * some starting with a forged credential), all from this process's address. Meanwhile `/media/health` is asked
 * every 100 ms. It prints per phase the calls greeted, their time to the first audio heard, the health route's
 * latency, and for the attack how long the gateway let an unauthenticated socket stay and how it closed them
 * (its `parley_media_unauthenticated_closed_total`). It exits non-zero when a call of the attack phase is not
 * greeted. Never part of `npm test`.
 */
import os from 'node:os';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';
import { startFakeLlmServer } from '../test/fakes/llm-server.ts';
import { connectMediaStream, L16_16K } from '../test/support/media-stream-client.ts';
import { createCallingAccount, deployParley } from './calls/parley-process.ts';
import { percentile } from './percentile.ts';

const { values } = parseArgs({ options: { 'sockets': { type: 'string', default: '40' }, 'calls': { type: 'string', default: '8' }, 'media-max-calls': { type: 'string', default: '4' } } });
const [sockets, callCount, maxCalls] = [values.sockets, values.calls, values['media-max-calls']].map(Number) as [number, number, number];

/** A well-formed `start` whose credential (the web call's `?token=`) opens nothing. */
const FORGED_START = {
  event: 'start', sequenceNumber: '1', streamSid: 'MZ00000000000000000000000000000001',
  start: {
    streamSid: 'MZ00000000000000000000000000000001', accountSid: 'AC00000000000000000000000000000000', callSid: 'CA00000000000000000000000000000000',
    tracks: ['inbound'], customParameters: {}, mediaFormat: L16_16K,
  },
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? '–' : `${Math.round(percentile(sorted, 50))} / ${Math.round(percentile(sorted, 95))} / ${Math.round(sorted.at(-1)!)}`;
};

const llm = await startFakeLlmServer({ chunkSize: 8 });
llm.respond(() => ({ reply: 'Thank you. Goodbye!' }));
const parley = await deployParley({ name: 'lines', llmUrl: llm.baseUrl, extra: { MEDIA_MAX_CALLS: String(maxCalls) } });
let failed = false;

/** Asks `/media/health` every 100 ms while `running()`; the answers' latencies in ms. */
async function probeHealth(running: () => boolean): Promise<number[]> {
  const latencies: number[] = [];
  const url = `${parley.mediaUrl.replace(/^ws/, 'http')}/media/health`;
  while (running()) {
    const began = performance.now();
    await fetch(url).then((answer) => answer.arrayBuffer(), () => undefined);
    latencies.push(performance.now() - began);
    await sleep(100);
  }
  return latencies;
}

try {
  const account = createCallingAccount(parley, { balanceUsd: 50 });
  await parley.start();
  const assistant = await account.assistant();

  /** One real web call: created, connected, greeted (ms to the first audio with sound), hung up. */
  async function realCall(): Promise<number | undefined> {
    const began = performance.now();
    const created = await parley.request('POST', '/user/web-calls', { token: account.token, body: { assistant_id: assistant.id } });
    if (created.status !== 201) return undefined;
    const caller = await connectMediaStream(created.body.data.websocket_url as string, L16_16K);
    caller.start();
    const greeted = await caller.waitFor(() => caller.playedSound.length > 0, 30_000, 'the greeting').then(() => caller.playedSound[0]! - began, () => undefined);
    caller.stop();
    await Promise.race([caller.closed, sleep(5000)]);
    return greeted;
  }

  async function phase(attack: boolean) {
    let running = true;
    const lifetimes: number[] = [];
    const closes = new Map<number, number>();
    let opened = 0;
    const hold = async (forged: boolean): Promise<void> => {
      while (running) {
        opened++;
        const began = performance.now();
        const socket = new WebSocket(`${parley.mediaUrl}/media/web-call?token=${'x'.repeat(48)}`);
        socket.on('error', () => undefined);
        if (forged) socket.once('open', () => socket.send(JSON.stringify(FORGED_START)));
        const code = await new Promise<number>((resolve) => socket.once('close', resolve));
        lifetimes.push(performance.now() - began);
        closes.set(code, (closes.get(code) ?? 0) + 1);
      }
    };
    const holders = attack ? Array.from({ length: sockets }, (_, index) => hold(index % 10 === 9)) : [];
    const health = probeHealth(() => running);
    // The attack holds its sockets first, so the calls meet a full waiting room.
    if (attack) await sleep(2500);
    const greetings: (number | undefined)[] = [];
    for (let index = 0; index < callCount; index++) greetings.push(await realCall());
    running = false;
    await Promise.all(holders);
    return { greetings, health: await health, lifetimes, closes, opened };
  }

  console.log(`${callCount} web calls, alone and then beside ${sockets} sockets without a credential held and reopened (one in ten with a forged start); ` +
    `MEDIA_MAX_CALLS ${maxCalls}; ${process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}; load average ${os.loadavg()[0]!.toFixed(1)} on ${os.availableParallelism()} cores`);
  console.log('phase | greeted | to first audio p50 / p95 / max (ms) | /media/health p50 / p95 / max (ms) | sockets opened | a socket stayed p50 / max (ms) | closed by code');
  for (const attack of [false, true]) {
    const result = await phase(attack);
    const greeted = result.greetings.filter((ms): ms is number => ms !== undefined);
    if (attack && greeted.length < callCount) failed = true;
    const codes = [...result.closes].map(([code, count]) => `${code}: ${count}`).join(', ');
    console.log(`${attack ? 'attack' : 'alone '} | ${greeted.length} of ${callCount} | ${spread(greeted)} | ${spread(result.health)} | ${result.opened} | ` +
      `${attack ? `${Math.round(percentile([...result.lifetimes].sort((a, b) => a - b), 50))} / ${Math.round(Math.max(...result.lifetimes))}` : '–'} | ${codes || '–'}`);
  }
  const metrics = await (await fetch(parley.metricsUrl)).text();
  console.log(metrics.split('\n').filter((line) => line.startsWith('parley_media_unauthenticated') || line.startsWith('parley_calls_refused')).join('\n'));
  console.log(`load average ${os.loadavg()[0]!.toFixed(1)}`);
} finally {
  await parley.close();
  await llm.close();
}
process.exit(failed ? 1 : 0);
