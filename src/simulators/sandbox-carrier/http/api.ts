import type { TSchema } from '@sinclair/typebox';
import { parsePhoneNumberFromString } from 'libphonenumber-js/max';
import type { SignatureVerifier } from '../../../api/middleware/signatures.ts';
import { defineRoute, type RouteDefinition } from '../../../api/routing.ts';
import type { SandboxCarrier } from '../carrier.ts';

/** What every route of the sandbox carrier's API works with. */
export interface CarrierApi {
  carrier: SandboxCarrier;
  /** The carrier's key, presented by Parley's processes as a bearer token. */
  auth: SignatureVerifier;
  /** Whether the carrier provisioned `phoneNumber` and has not taken it back. */
  holds: (phoneNumber: string) => Promise<boolean>;
}

/**
 * A route of the carrier's API: behind its key, in its tag, and refusing a body that fails its schema with a 400
 * and the field's text, as the carrier refuses a request (its adapter takes a 400 as a refusal).
 */
export function carrierRoute<P extends TSchema, Q extends TSchema, B extends TSchema>(
  api: CarrierApi,
  route: Omit<RouteDefinition<P, Q, B, SignatureVerifier, undefined>, 'tag' | 'auth' | 'invalidBody'>,
): RouteDefinition {
  return defineRoute<P, Q, B, SignatureVerifier>({ ...route, tag: 'Sandbox carrier', auth: api.auth, invalidBody: 'bad_request' });
}

/** Whether `text` is a valid phone number written in E.164, as the carrier dials and texts only those. */
export function exactE164(text: string): boolean {
  const number = parsePhoneNumberFromString(text);
  return number?.isValid() === true && number.number === text;
}
