import type { SecretBox } from './secrets.ts';

/**
 * The bearer token of the sip role's control API (placing, ending and transferring trunk calls): the app key's
 * signature of a fixed text, so the worker and the media role that ask and the sip replica that checks derive
 * the same token from the key every process of a deployment shares, and no other secret is distributed.
 */
export function sipControlToken(secrets: SecretBox): string {
  return secrets.sign('control', 'sip-control');
}
