import { isUniqueViolation } from '../../db/errors.ts';
import net from 'node:net';
import type { Knex } from 'knex';
import type { Clock } from '../../lib/clock.ts';
import { ConflictError, NotFoundError, ValidationError } from '../../lib/errors.ts';
import type { SecretBox } from '../../lib/secrets.ts';
import { PhoneNumber } from '../phone-numbers/model.ts';
import type { CreateSipTrunkBody, UpdateSipTrunkBody } from './schemas.ts';

export interface SipTrunkDeps {
  knex: Knex;
  secrets: SecretBox;
  clock: Clock;
}

/** Associated data of password ciphertexts: they decrypt only as SIP trunk passwords. */
export const SIP_PASSWORD_PURPOSE = 'sip_trunk.password';

const NOT_FOUND = 'SIP trunk not found.';
const DUPLICATE = 'A SIP trunk with the same phone number, username, and address already exists.';

/** The trunk's fields after defaults (create) or the stored values (update) are applied, before the rules. */
type TrunkFields = Required<Omit<CreateSipTrunkBody, 'sip_password' | 'nickname'>> & { nickname: string | null };

/** Punctuation people write numbers with, dropped before the E.164 check (`+49 30 1234-5678`). */
function normalisePhoneNumber(type: TrunkFields['sip_trunk_type'], value: string): string {
  return type === 'number' ? value.replace(/[\s().-]/g, '') : value.trim();
}

function isAddressOrRange(value: string): boolean {
  const [address, prefix, ...rest] = value.split('/');
  const version = net.isIP(address ?? '');
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

/** The rules that span fields, in Laravel's 422 shape; returns the values as stored. */
function checkTrunk(fields: TrunkFields): TrunkFields {
  const errors: Record<string, string[]> = {};
  const phoneNumber = normalisePhoneNumber(fields.sip_trunk_type, fields.phone_number);
  if (fields.sip_trunk_type === 'number' && !/^\+[1-9][0-9]{6,14}$/.test(phoneNumber)) {
    errors.phone_number = ['The phone number field must be a phone number in E.164 format.'];
  }
  if (fields.sip_trunk_type === 'extension' && !/^[0-9A-Za-z*#._-]{1,15}$/.test(phoneNumber)) {
    errors.phone_number = ['The phone number field must be an extension of 1 to 15 letters, digits or * # . _ -.'];
  }
  if (fields.inbound_authorization_type === 'ip' && fields.allowed_inbound_ips.length === 0) {
    errors.allowed_inbound_ips = ['The allowed inbound ips field is required when inbound authorization type is ip.'];
  }
  fields.allowed_inbound_ips.forEach((value, index) => {
    if (!isAddressOrRange(value)) errors[`allowed_inbound_ips.${index}`] = [`The allowed_inbound_ips.${index} field must be a valid IP address or CIDR range.`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  return {
    ...fields,
    phone_number: phoneNumber,
    nickname: fields.nickname?.trim() || null,
    sip_address: fields.sip_address.toLowerCase(),
    country_code: fields.country_code.toUpperCase(),
  };
}

function columns(fields: TrunkFields) {
  return {
    phoneNumber: fields.phone_number,
    nickname: fields.nickname,
    countryCode: fields.country_code,
    sipTrunkType: fields.sip_trunk_type,
    sipUsername: fields.sip_username,
    sipAddress: fields.sip_address,
    sipCallingFormat: fields.sip_calling_format,
    inboundAuthorizationType: fields.inbound_authorization_type,
    allowedInboundIps: fields.allowed_inbound_ips,
    outboundProxy: fields.outbound_proxy,
  };
}

/** Objection wraps the driver's error; its `constraint` names the index that refused the row. */
function isDuplicateTrunk(error: unknown): boolean {
  return isUniqueViolation(error, 'phone_numbers_sip_trunk_unique');
}

/** Runs a write; the unique index on phone number, username and address turns a duplicate into the 409. */
async function refusingDuplicates<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isDuplicateTrunk(error)) throw new ConflictError(DUPLICATE);
    throw error;
  }
}

export async function createSipTrunk(deps: SipTrunkDeps, userId: number, input: CreateSipTrunkBody): Promise<PhoneNumber> {
  const fields = checkTrunk({
    sip_trunk_type: input.sip_trunk_type,
    phone_number: input.phone_number,
    nickname: input.nickname ?? null,
    sip_username: input.sip_username,
    sip_address: input.sip_address,
    sip_calling_format: input.sip_calling_format ?? '+e164',
    inbound_authorization_type: input.inbound_authorization_type ?? 'auth',
    allowed_inbound_ips: input.allowed_inbound_ips ?? [],
    country_code: input.country_code,
    outbound_proxy: input.outbound_proxy ?? false,
  });
  return refusingDuplicates(async () => PhoneNumber.query(deps.knex).insertAndFetch({
    userId,
    type: 'sip',
    smsCapable: false,
    ...columns(fields),
    sipPassword: deps.secrets.encrypt(input.sip_password, SIP_PASSWORD_PURPOSE),
  }));
}

export async function listSipTrunks(knex: Knex, userId: number): Promise<PhoneNumber[]> {
  return PhoneNumber.query(knex).where({ userId, type: 'sip' }).orderBy('id');
}

async function findTrunk(knex: Knex, userId: number, id: number, lock = false): Promise<PhoneNumber> {
  const query = PhoneNumber.query(knex).findOne({ id, userId, type: 'sip' });
  if (lock) query.forUpdate();
  const trunk = await query;
  if (!trunk) throw new NotFoundError(NOT_FOUND);
  return trunk;
}

export async function getSipTrunk(knex: Knex, userId: number, id: number): Promise<PhoneNumber> {
  return findTrunk(knex, userId, id);
}

/** A partial update: the stored trunk with the fields sent laid over it must pass every rule of a new one. */
export async function updateSipTrunk(deps: SipTrunkDeps, userId: number, id: number, input: UpdateSipTrunkBody): Promise<PhoneNumber> {
  return refusingDuplicates(() => deps.knex.transaction(async (trx) => {
    const stored = await findTrunk(trx, userId, id, true);
    const fields = checkTrunk({
      sip_trunk_type: input.sip_trunk_type ?? stored.sipTrunkType ?? 'number',
      phone_number: input.phone_number ?? stored.phoneNumber,
      nickname: input.nickname === undefined ? stored.nickname : input.nickname,
      sip_username: input.sip_username ?? stored.sipUsername ?? '',
      sip_address: input.sip_address ?? stored.sipAddress ?? '',
      sip_calling_format: input.sip_calling_format ?? stored.sipCallingFormat ?? '+e164',
      inbound_authorization_type: input.inbound_authorization_type ?? stored.inboundAuthorizationType ?? 'auth',
      allowed_inbound_ips: input.allowed_inbound_ips ?? stored.allowedInboundIps ?? [],
      country_code: input.country_code ?? stored.countryCode,
      outbound_proxy: input.outbound_proxy ?? stored.outboundProxy ?? false,
    });
    return stored.$query(trx).patchAndFetch({
      ...columns(fields),
      ...(input.sip_password !== undefined ? { sipPassword: deps.secrets.encrypt(input.sip_password, SIP_PASSWORD_PURPOSE) } : {}),
      updatedAt: deps.clock(),
    });
  }));
}
