import type { SecretBox } from '../lib/secrets.ts';
import { signPath } from '../lib/signed-links.ts';

/**
 * How long a recording link works: long enough for a post-call webhook's consumer to fetch the file after the
 * delivery's retries, short enough that a leaked link dies within a day. Each read of a call signs a fresh one.
 */
const RECORDING_LINK_SECONDS = 24 * 60 * 60;

export interface RecordingLinks {
  secrets: SecretBox;
  /** Base URL of the API's clients. */
  publicUrl: string;
  now: Date;
}

/** The path of a call's recording under `/api`, the part of the link that is signed. */
export function recordingPath(callId: number): string {
  return `/api/recordings/${callId}`;
}

/** A signed link to the call's recording, as the call's read and its post-call webhook show it; null without one. */
export function recordingUrl(call: { id: number; recordingKey: string | null }, links: RecordingLinks): string | null {
  if (!call.recordingKey) return null;
  const expiresAt = new Date(links.now.getTime() + RECORDING_LINK_SECONDS * 1000);
  return `${links.publicUrl}${signPath(links.secrets, recordingPath(call.id), expiresAt)}`;
}
