import { Type, type Static } from '@sinclair/typebox';
import { IsoTimestamp, nullable, orNull } from '../../api/schemas.ts';
import { MESSAGES } from '../../api/validation.ts';

export const SIP_TRUNK_TYPES = ['extension', 'number'] as const;
export const CALLING_FORMATS = ['+e164', 'e164', 'national'] as const;
export const AUTHORIZATION_TYPES = ['auth', 'ip'] as const;

/** A host name or IPv4 address, without a port or scheme: where the trunk's SIP traffic goes. */
const SipAddress = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$',
  examples: ['sip.example.com'],
  [MESSAGES]: { pattern: 'The :attribute field must be a host name or IP address without a port.' },
});

const fields = {
  sip_trunk_type: Type.Union(SIP_TRUNK_TYPES.map((value) => Type.Literal(value)), { description: '`number`: an E.164 number; `extension`: an extension of 1 to 15 characters.' }),
  phone_number: Type.String({ minLength: 1, maxLength: 16, examples: ['+4930123456789'], description: 'E.164 for `number` trunks, the extension for `extension` trunks.' }),
  nickname: orNull(Type.String({ maxLength: 50 })),
  sip_username: Type.String({ minLength: 3, maxLength: 128 }),
  sip_password: Type.String({ minLength: 3, maxLength: 255, description: 'Stored encrypted; never returned.' }),
  sip_address: SipAddress,
  sip_calling_format: Type.Union(CALLING_FORMATS.map((value) => Type.Literal(value)), { description: 'How numbers are written in outgoing calls; `+e164` by default.' }),
  inbound_authorization_type: Type.Union(AUTHORIZATION_TYPES.map((value) => Type.Literal(value)), { description: '`auth` (the username and password; the default) or `ip` (the allowed addresses).' }),
  allowed_inbound_ips: Type.Array(Type.String({ maxLength: 64 }), { maxItems: 50, description: 'IP addresses or CIDR ranges; required when `inbound_authorization_type` is `ip`.' }),
  country_code: Type.String({
    pattern: '^[A-Za-z]{2}$',
    examples: ['DE'],
    [MESSAGES]: { pattern: 'The :attribute field must be a two-letter country code.' },
  }),
  outbound_proxy: Type.Boolean({ description: 'Whether outgoing calls go through the SIP address as an outbound proxy; false by default.' }),
};

export const CreateSipTrunkBody = Type.Object({
  sip_trunk_type: fields.sip_trunk_type,
  phone_number: fields.phone_number,
  nickname: Type.Optional(fields.nickname),
  sip_username: fields.sip_username,
  sip_password: fields.sip_password,
  sip_address: fields.sip_address,
  sip_calling_format: Type.Optional(fields.sip_calling_format),
  inbound_authorization_type: Type.Optional(fields.inbound_authorization_type),
  allowed_inbound_ips: Type.Optional(fields.allowed_inbound_ips),
  country_code: fields.country_code,
  outbound_proxy: Type.Optional(fields.outbound_proxy),
}, { additionalProperties: false });
export type CreateSipTrunkBody = Static<typeof CreateSipTrunkBody>;

/** Every field optional: only those sent change, and the trunk they make must still pass every rule. */
export const UpdateSipTrunkBody = Type.Partial(Type.Object(fields), { additionalProperties: false });
export type UpdateSipTrunkBody = Static<typeof UpdateSipTrunkBody>;

export const SipTrunk = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String(),
  nickname: nullable(Type.String()),
  sip_trunk_type: Type.String({ enum: [...SIP_TRUNK_TYPES] }),
  sip_username: Type.String(),
  sip_address: Type.String(),
  sip_calling_format: Type.String({ enum: [...CALLING_FORMATS] }),
  inbound_authorization_type: Type.String({ enum: [...AUTHORIZATION_TYPES] }),
  allowed_inbound_ips: Type.Array(Type.String()),
  outbound_proxy: Type.Boolean(),
  country_code: Type.String(),
  inbound_trunk_id: nullable(Type.String({ description: 'The inbound trunk in the SIP gateway, once it has one.' })),
  outbound_trunk_id: nullable(Type.String({ description: 'The outbound trunk in the SIP gateway, once it has one.' })),
  created_at: IsoTimestamp,
  updated_at: IsoTimestamp,
}, { title: 'SipTrunk' });
