import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdField, MessageBody } from '../../api/schemas.ts';
import { makeCall, type MakeCallDeps } from './make-call.ts';

const MakeCallBody = Type.Object({
  phone_number: Type.String({ maxLength: 32, description: "The customer's number, E.164.", examples: ['+14155550123'] }),
  assistant_id: IdField({ description: 'One of your assistants, with a phone number to call from.' }),
  variables: Type.Optional(Type.Record(Type.String(), Type.Unknown(), {
    description: "Values for {{name}} placeholders, merged over the assistant's own (`customer_phone` is set to the number called).",
  })),
});

const CallInitiated = Type.Object({
  message: Type.Literal('Call initiated successfully'),
  data: Type.Object({}),
  call_id: Type.Integer(),
  status: Type.Literal('initiated'),
}, { title: 'CallInitiated' });

export function makeCallRoutes(deps: MakeCallDeps): RouteDefinition[] {
  return [
    defineRoute({
      method: 'POST',
      path: '/user/make_call',
      tag: 'Calls',
      summary: 'Call a phone number with one of your assistants',
      description: 'The call is dialled from the assistant\'s number; follow it with `GET /user/calls/{id}` (ringing, in-progress, '
        + 'then how it ended). Only the countries of your own numbers can be called.',
      auth: 'bearer',
      body: MakeCallBody,
      errors: ['bad_request', 'unprocessable', 'call_unaffordable', 'usage_limited', 'provider_unavailable'],
      responses: {
        200: { description: 'Dialing', schema: CallInitiated },
        404: { description: 'No such assistant of the caller', schema: MessageBody },
      },
      async handle({ auth, body }) {
        const { callId } = await makeCall(deps, auth.user.id, { phoneNumber: body.phone_number.trim(), assistantId: body.assistant_id, variables: body.variables ?? {} });
        return { body: { message: 'Call initiated successfully' as const, data: {}, call_id: callId, status: 'initiated' as const } };
      },
    }),
  ];
}
