/**
 * A web call through the platform's media gateway, as a browser places it: `POST /user/web-calls`, then a
 * scripted Media Streams caller on the `websocket_url` it answers. Also what the call tests read from the
 * caller's side: the live transcript the gateway sends.
 */
import { expect } from 'vitest';
import { connectMediaStream, L16_16K, type MediaStreamClient } from './media-stream-client.ts';
import type { TestPlatform } from './platform.ts';
import type { TestUser } from './users.ts';

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
