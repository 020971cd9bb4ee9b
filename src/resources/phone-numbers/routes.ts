import { Type } from '@sinclair/typebox';
import type { Knex } from 'knex';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { typeLabels } from './model.ts';
import { assignableNumbers } from './service.ts';

const AssignableNumberItem = Type.Object({
  id: Type.Integer(),
  phone_number: Type.String({ examples: ['+4915112345678'] }),
  country_code: Type.String({ examples: ['DE'] }),
  type_label: Type.String({ enum: Object.values(typeLabels) }),
  is_available: Type.Boolean({ description: 'Whether a new inbound assistant can take the number.' }),
}, { title: 'AssignablePhoneNumber' });

export function phoneNumberAssignmentRoutes({ knex }: { knex: Knex }): RouteDefinition[] {
  return [
    defineRoute({
      method: 'GET',
      path: '/user/assistants/phone-numbers',
      tag: 'Assistants',
      summary: "The caller's numbers, for assigning to an assistant (a bare array)",
      description: 'With `type=inbound`, caller-ID numbers and numbers already on an inbound assistant are left out.',
      auth: 'bearer',
      query: Type.Object({
        type: Type.Optional(Type.Union([Type.Literal('inbound'), Type.Literal('outbound')], { description: 'The direction of the assistant the number is for.' })),
      }),
      responses: { 200: { description: 'The numbers', schema: Type.Array(AssignableNumberItem) } },
      async handle({ auth, query }) {
        const numbers = await assignableNumbers(knex, auth.user.id, query.type);
        return {
          body: numbers.map(({ number, isAvailable }) => ({
            id: number.id,
            phone_number: number.phoneNumber,
            country_code: number.countryCode,
            type_label: typeLabels[number.type],
            is_available: isAvailable,
          })),
        };
      },
    }),
  ];
}
