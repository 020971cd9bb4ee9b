/**
 * A web call through the platform's media gateway, as a browser places it: `POST /user/web-calls`, then a
 * scripted Media Streams caller on the `websocket_url` it answers. Also what the call tests read from the
 * caller's side: the live transcript the gateway sends, and where speech begins in a line to be said.
 */
import { expect } from 'vitest';
import { connectMediaStream, L16_16K, type MediaStreamClient } from './media-stream-client.ts';
import type { TestPlatform } from './platform.ts';
import { rms } from './speech.ts';
import type { TestUser } from './users.ts';

/** 20 ms at 16 kHz: the caller's frame. */
const FRAME_SAMPLES = 320;
/** A 20 ms frame louder than this (RMS) holds the caller's voice; espeak-ng's silence is all zeros. */
const VOICED_RMS = 200;

/** Creates a web call of `assistantId` and connects a caller that has sent its `start`. */
export async function placeWebCall(platform: TestPlatform, owner: TestUser, assistantId: number): Promise<{ callId: number; caller: MediaStreamClient }> {
  const created = await platform.request('POST', '/user/web-calls', { token: owner.token, body: { assistant_id: assistantId } });
  expect(created.status).toBe(201);
  const { call_id: callId, websocket_url: websocketUrl } = created.body.data as { call_id: number; websocket_url: string };
  const caller = await connectMediaStream(websocketUrl, L16_16K);
  caller.start();
  return { callId, caller };
}

/** The live transcript the caller was sent, as `role: text` lines. */
export function transcriptLines(caller: MediaStreamClient): string[] {
  return caller.received.flatMap((message) => (message.transcript ? [`${message.transcript.role}: ${message.transcript.text}`] : []));
}

/** Resolves once the live transcript has `count` lines, with them. */
export async function transcriptOf(caller: MediaStreamClient, count: number, timeoutMs = 30_000): Promise<string[]> {
  await caller.waitFor(() => transcriptLines(caller).length >= count, timeoutMs, `${count} transcript lines after ${JSON.stringify(transcriptLines(caller))}`);
  return transcriptLines(caller);
}

/**
 * `samples` from the first frame that holds the voice, so that saying them makes the caller's first frame
 * its first voiced one: the time `say` resolves with is then the onset of speech on the caller's side.
 */
export function fromVoiceOnset(samples: Int16Array): Int16Array {
  for (let offset = 0; offset + FRAME_SAMPLES <= samples.length; offset += FRAME_SAMPLES) {
    if (rms(samples.subarray(offset, offset + FRAME_SAMPLES)) > VOICED_RMS) return samples.subarray(offset);
  }
  throw new Error('the line holds no voice');
}
