import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdInteger } from '../../api/schemas.ts';
import { isoTimestamp } from '../../lib/time.ts';
import type { PhoneNumber } from './model.ts';
import { ownedNumbers, releaseNumber, renameNumber, smsNumbers } from './service.ts';

/** How the numbers list names each kind of number. */
const listLabels = { normal: 'Dedicated Number', sip: 'SIP Trunk', caller_id: 'Caller ID' } as const;

const OwnedNumber = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String(),
  nickname: Type.Union([Type.String(), Type.Null()]),
  country_code: Type.String(),
  type: Type.Union([Type.Literal('normal'), Type.Literal('sip'), Type.Literal('caller_id')]),
  type_label: Type.String({ enum: Object.values(listLabels) }),
  sms_capable: Type.Boolean(),
  region: Type.String({ description: "The deployment's region (REGION)." }),
  has_active_subscription: Type.Boolean({ description: 'A bought number whose subscription is paid up, or a SIP trunk or caller ID.' }),
  created_at: Type.String({ format: 'date-time' }),
}, { title: 'OwnedPhoneNumber' });

const SmsNumber = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String(),
  nickname: Type.Union([Type.String(), Type.Null()]),
  country_code: Type.String(),
  sms_capable: Type.Boolean(),
}, { title: 'SmsPhoneNumber' });

const NumberParams = Type.Object({ id: IdInteger() });

export interface OwnedNumberDeps {
  knex: Knex;
  region: string;
  /** Tells the number's subscription workflow that its owner released it. */
  tellRelease: (phoneNumberId: number) => Promise<void>;
}

export function ownedNumberRoutes(deps: OwnedNumberDeps): RouteDefinition[] {
  const { knex } = deps;
  const common = { tag: 'Phone numbers', auth: 'bearer' as const, errorStyle: 'error' as const };
  const owned = (number: PhoneNumber) => ({
    id: number.id,
    phone_number: number.phoneNumber,
    nickname: number.nickname,
    country_code: number.countryCode,
    type: number.type,
    type_label: listLabels[number.type],
    sms_capable: number.smsCapable,
    region: deps.region,
    has_active_subscription: number.type !== 'normal' || number.status === 'active',
    created_at: isoTimestamp(number.createdAt),
  });
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/phone-numbers/all',
      summary: "The caller's numbers: bought, SIP trunks and caller IDs",
      responses: { 200: { description: 'The numbers', schema: Type.Object({ data: Type.Array(OwnedNumber) }) } },
      async handle({ auth }) {
        return { body: { data: (await ownedNumbers(knex, auth.user.id)).map(owned) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/phone-numbers',
      summary: 'SMS-capable numbers with an active subscription (a bare array; integrations fill "from" lists with it)',
      responses: { 200: { description: 'The numbers', schema: Type.Array(SmsNumber) } },
      async handle({ auth }) {
        const numbers = await smsNumbers(knex, auth.user.id);
        return { body: numbers.map((number) => ({ id: number.id, phone_number: number.phoneNumber, nickname: number.nickname, country_code: number.countryCode, sms_capable: number.smsCapable })) };
      },
    }),
    defineRoute({
      ...common,
      method: 'PUT',
      path: '/user/phone-numbers/{id}',
      summary: "Rename a number (null or an empty nickname clears it)",
      params: NumberParams,
      body: Type.Object({ nickname: Type.Optional(Type.Union([Type.String({ maxLength: 50 }), Type.Null()])) }),
      responses: {
        200: {
          description: 'Renamed',
          schema: Type.Object({
            message: Type.String(),
            data: Type.Object({ id: Type.Integer(), phone_number: Type.String(), nickname: Type.Union([Type.String(), Type.Null()]), country_code: Type.String(), type: Type.String() }),
          }),
        },
      },
      async handle({ auth, params, body }) {
        const number = await renameNumber(knex, auth.user.id, params.id, body.nickname ?? null);
        return {
          body: {
            message: 'Phone number updated successfully.',
            data: { id: number.id, phone_number: number.phoneNumber, nickname: number.nickname, country_code: number.countryCode, type: number.type },
          },
        };
      },
    }),
    defineRoute({
      ...common,
      method: 'DELETE',
      path: '/user/phone-numbers/{id}',
      summary: 'Release a bought number at the end of its paid period; delete a SIP trunk or caller ID at once',
      params: NumberParams,
      errors: ['bad_request'],
      responses: { 200: { description: 'Released or deleted', schema: Type.Object({ message: Type.String() }) } },
      async handle({ auth, params }) {
        const outcome = await releaseNumber(deps, auth.user.id, params.id);
        return {
          body: {
            message: outcome === 'scheduled'
              ? 'Phone number released successfully. It will be removed at the end of the billing period.'
              : 'Phone number deleted successfully.',
          },
        };
      },
    }),
  ];
}
