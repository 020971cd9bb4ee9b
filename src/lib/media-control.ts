import { createHmac } from 'node:crypto';

/**
 * The bearer token of the media gateway's control routes (`POST /media/calls/<id>/hangup`): an HMAC-SHA256 of
 * the app key over the text `media-control`. Every process of a deployment shares the app key, so the worker
 * that asks and the media replica that checks derive the same token, and no other secret has to be shared.
 */
export function mediaControlToken(appKey: Buffer): string {
  return createHmac('sha256', appKey).update('media-control').digest('base64url');
}
