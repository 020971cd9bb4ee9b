/**
 * The callers' process of the voice benchmarks (forked by platform.ts): the fake providers at fixed delays
 * (fakes.ts, on a worker thread), and scripted web calls over the Media Streams protocol, timed on this side of the socket. Each call asks the
 * API for a web call, answers, hears the greeting, then says its lines one per turn, each after the
 * assistant's reply has played and a short pause, until its time is up; then it hangs up. A barge-in call
 * instead speaks over the assistant's replies and times how soon they stop.
 */
import { once } from 'node:events';
import { Worker } from 'node:worker_threads';
import { apiRequest } from '../../test/support/http.ts';
import { connectMediaStream, L16_16K, type MediaStreamClient } from '../../test/support/media-stream-client.ts';
import { fromVoiceOnset } from '../../test/support/speech.ts';
import { callerAudio, closeCallerVoices } from './caller-audio.ts';
import type { BargeInPlan, BargeInReply, BargeInRound, CallPlan, CallResult, CallerReply, CallerRequest, FakeDelays, FakeUrls, TurnResult } from './protocol.ts';

const FRAME_MS = 20;
/** Frames of a reply's first burst (the engine's 80 ms lead plus the frame due now), left out of the jitter. */
const BURST_FRAMES = 5;
const REPLY_TIMEOUT_MS = 60_000;
/** How long after the caller's interruption a `clear` may still come before the round counts as not stopped. */
const CLEAR_TIMEOUT_MS = 3000;

const closers: (() => Promise<void>)[] = [];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function startFakes(delays: FakeDelays): Promise<CallerReply> {
  const fakes = new Worker(new URL('./fakes.ts', import.meta.url), { workerData: delays });
  const [urls] = await once(fakes, 'message') as [FakeUrls];
  closers.push(async () => {
    fakes.postMessage('close');
    await once(fakes, 'exit');
  });
  return { urls };
}

/** Counts what arrives as it arrives, without rescanning what was counted. */
function follower(caller: MediaStreamClient) {
  let scanned = 0;
  let replies = 0;
  const frames: number[] = [];
  const users: string[] = [];
  const scan = () => {
    for (; scanned < caller.received.length; scanned++) {
      const message = caller.received[scanned]!;
      if (message.transcript?.role === 'assistant') replies++;
      else if (message.transcript?.role === 'user') users.push(message.transcript.text);
      else if (message.event === 'media') frames.push(message.at);
    }
  };
  return {
    /** The assistant's committed turns so far (each `transcript` event of the assistant). */
    replies(): number {
      scan();
      return replies;
    },
    /** Arrival times of the audio frames since the last call. */
    takeFrames: () => {
      scan();
      return frames.splice(0);
    },
    /** The caller's committed turns since the last call. */
    takeUsers: () => {
      scan();
      return users.splice(0);
    },
  };
}

function jitterOf(frames: number[]): number[] {
  const deviations: number[] = [];
  for (let i = BURST_FRAMES + 1; i < frames.length; i++) deviations.push(Math.abs((frames[i] as number) - (frames[i - 1] as number) - FRAME_MS));
  return deviations;
}

/** Asks the API for a web call and connects its caller (not yet started). */
async function placeCall(plan: Pick<CallPlan, 'apiUrl' | 'token' | 'assistantId'>): Promise<{ callId: number; caller: MediaStreamClient } | { error: string }> {
  const created = await apiRequest(plan.apiUrl)('POST', '/user/web-calls', { token: plan.token, body: { assistant_id: plan.assistantId } });
  if (created.status !== 201) return { error: `POST /user/web-calls: ${created.status} ${created.text}` };
  const { call_id: callId, websocket_url: url } = created.body.data as { call_id: number; websocket_url: string };
  return { callId, caller: await connectMediaStream(url, L16_16K) };
}

async function hangUp(caller: MediaStreamClient): Promise<void> {
  caller.stop();
  caller.close();
  await caller.closed;
}

async function oneCall(plan: CallPlan, lines: Int16Array[], startAfterMs: number): Promise<CallResult> {
  await sleep(startAfterMs);
  const result: CallResult = { callId: 0, greetingMs: undefined, turns: [], jitterMs: [] };
  const placed = await placeCall(plan);
  if ('error' in placed) return { ...result, error: placed.error };
  const { callId, caller } = placed;
  result.callId = callId;
  const heard = follower(caller);
  const until = performance.now() + plan.durationMs;
  const waitForReply = (count: number) => caller.waitFor(() => heard.replies() >= count, REPLY_TIMEOUT_MS, 'the assistant to finish a turn');
  try {
    const answeredAt = performance.now();
    caller.start();
    await waitForReply(1);
    const greeting = heard.takeFrames();
    result.greetingMs = greeting[0] === undefined ? undefined : greeting[0] - answeredAt;
    result.jitterMs.push(...jitterOf(greeting));
    for (let turn = 0; turn < plan.maxTurns && performance.now() < until; turn++) {
      const [low, high] = plan.pauseMs;
      await sleep(low + Math.random() * (high - low));
      const line = turn % lines.length;
      const replies = heard.replies();
      heard.takeFrames();
      heard.takeUsers();
      await caller.say(lines[line] as Int16Array);
      const endOfSpeech = performance.now();
      const duringSpeech = heard.takeFrames();
      await waitForReply(replies + 1);
      // A reply to a fragment of the line is followed by more turns: they are counted with the line.
      if (plan.settleMs) await sleep(plan.settleMs);
      const frames = heard.takeFrames().filter((at) => at > endOfSpeech);
      result.turns.push({ line, feltMs: frames[0] === undefined ? undefined : frames[0] - endOfSpeech, userTurns: heard.takeUsers(), replyWhileSpeaking: duringSpeech.length } satisfies TurnResult);
      result.jitterMs.push(...jitterOf(frames));
    }
  } catch (error) {
    result.error = error instanceof Error ? error.message : String(error);
  } finally {
    await hangUp(caller);
  }
  return result;
}

/**
 * One interruption: says `interruption` (its first frame voiced) over the reply playing, and times from that
 * onset the `clear` and the last reply frame before it; resolves once the clear has come.
 */
async function interrupt(caller: MediaStreamClient, interruption: Int16Array, round: number): Promise<BargeInRound> {
  const from = caller.received.length;
  const onset = await caller.say(interruption);
  const saidUntil = performance.now();
  let clearAt = -1;
  await caller.waitFor(() => {
    clearAt = caller.received.findIndex((message, index) => index >= from && message.event === 'clear' && message.at >= onset);
    return clearAt >= 0;
  }, saidUntil - onset + CLEAR_TIMEOUT_MS, `the clear of barge-in ${round}`);
  const clear = caller.received[clearAt]!;
  const lastFrame = caller.received.findLast((message, index) => index < clearAt && message.event === 'media');
  return {
    clearMs: clear.at - onset,
    lastFrameMs: (lastFrame?.at ?? Number.NaN) - onset,
    framesAfterClear: caller.received.filter((message, index) => index > clearAt && message.event === 'media' && message.at < saidUntil).length,
  };
}

/** A call that interrupts the assistant's replies `plan.rounds` times (BargeInPlan). */
async function bargeInCall(plan: BargeInPlan): Promise<BargeInReply> {
  const opening = await callerAudio(plan.opening);
  const interruption = fromVoiceOnset(await callerAudio(plan.interruption));
  const placed = await placeCall(plan);
  if ('error' in placed) return { callId: 0, rounds: [], error: placed.error };
  const { callId, caller } = placed;
  const reply: BargeInReply = { callId, rounds: [] };
  const heard = follower(caller);
  try {
    caller.start();
    await caller.waitFor(() => heard.replies() >= 1, REPLY_TIMEOUT_MS, 'the greeting');
    await caller.say(opening);
    for (let round = 1; round <= plan.rounds; round++) {
      // Counted after the last clear (which dropped what was queued), so only the new reply's sound counts.
      const played = caller.playedSound.length;
      await caller.waitFor(() => caller.playedSound.length >= played + plan.afterMs / FRAME_MS, REPLY_TIMEOUT_MS, `reply ${round} to play ${plan.afterMs} ms`);
      reply.rounds.push(await interrupt(caller, interruption, round));
    }
  } catch (error) {
    reply.error = error instanceof Error ? error.message : String(error);
  } finally {
    await hangUp(caller);
  }
  return reply;
}

async function run(plan: CallPlan): Promise<CallerReply> {
  const lines: Int16Array[] = [];
  for (const line of plan.lines) lines.push(await callerAudio(line));
  const cpu = process.cpuUsage();
  const startedAt = performance.now();
  const results = await Promise.all(Array.from({ length: plan.calls }, (_, index) => oneCall(plan, lines, (plan.rampMs * index) / plan.calls)));
  const used = process.cpuUsage(cpu);
  return { results, cpuMs: (used.user + used.system) / 1000, wallMs: performance.now() - startedAt };
}

process.on('message', (request: CallerRequest) => {
  const answer = async (): Promise<CallerReply | undefined> => {
    switch (request.type) {
      case 'fakes':
        return startFakes(request.delays);
      case 'run':
        return run(request.plan);
      case 'barge-in':
        return bargeInCall(request.plan);
      case 'exit':
        closeCallerVoices();
        for (const close of closers.splice(0)) await close();
        process.disconnect?.();
        return undefined;
    }
  };
  answer().then(
    (reply) => reply && process.send?.(reply),
    (error: unknown) => process.send?.({ error: error instanceof Error ? error.stack ?? error.message : String(error) }),
  );
});
