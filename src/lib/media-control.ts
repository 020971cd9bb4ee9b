import { createHmac } from 'node:crypto';
import type { SecretBox } from './secrets.ts';

/**
 * The bearer token of the media gateway's control routes (`POST /media/calls/<id>/hangup`): an HMAC-SHA256 of
 * the app key over the text `media-control`. Every process of a deployment shares the app key, so the worker
 * that asks and the media replica that checks derive the same token, and no other secret has to be shared.
 */
export function mediaControlToken(appKey: Buffer): string {
  return createHmac('sha256', appKey).update('media-control').digest('base64url');
}

/** The media gateway's path for calls a carrier streams to it (Twilio Media Streams). */
export const PHONE_STREAM_PATH = '/media/phone-call';

/**
 * The credential a carrier's media stream presents for a call (a `<Stream>` parameter): the app key's
 * signature of the call's id, so the gateway serves only streams Parley asked a carrier for.
 */
export function phoneStreamToken(secrets: SecretBox, callId: number): string {
  return secrets.sign(`call-${callId}`, 'phone-stream');
}
