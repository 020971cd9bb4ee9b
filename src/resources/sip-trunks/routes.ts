import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { ErrorBody, IdParams, ValidationErrorBody } from '../../api/schemas.ts';
import { CreateSipTrunkBody, SipTrunk, UpdateSipTrunkBody } from './schemas.ts';
import { sipTrunkResponse } from './serialize.ts';
import { createSipTrunk, getSipTrunk, listSipTrunks, updateSipTrunk, type SipTrunkDeps } from './service.ts';

/**
 * SIP trunks: numbers of type `sip` that reach Parley over the owner's own SIP provider. They are deleted
 * through `DELETE /user/phone-numbers/{id}`. Mount before the `/user/phone-numbers/{id}` routes.
 */
export function sipTrunkRoutes(deps: SipTrunkDeps): RouteDefinition[] {
  const common = { tag: 'SIP trunks', auth: 'bearer' as const, errorStyle: 'error' as const };
  const notFound = { description: 'No such SIP trunk of the caller', schema: ErrorBody };
  return [
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/phone-numbers/sip-trunks',
      summary: "The caller's SIP trunks (passwords are never returned)",
      responses: { 200: { description: 'The trunks', schema: Type.Object({ data: Type.Array(SipTrunk) }) } },
      async handle({ auth }) {
        return { body: { data: (await listSipTrunks(deps.knex, auth.user.id)).map(sipTrunkResponse) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'POST',
      path: '/user/phone-numbers/sip-trunks',
      summary: 'Add a SIP trunk',
      description: 'The password is stored encrypted and never returned. `allowed_inbound_ips` is required when `inbound_authorization_type` is `ip`.',
      body: CreateSipTrunkBody,
      responses: {
        201: { description: 'Created', schema: Type.Object({ message: Type.Literal('SIP trunk created successfully.'), data: SipTrunk }) },
        409: { description: 'A trunk with the same phone number, username and address exists', schema: ErrorBody },
        422: { description: 'Validation failed', schema: ValidationErrorBody },
      },
      errors: ['conflict'],
      async handle({ auth, body }) {
        const trunk = await createSipTrunk(deps, auth.user.id, body);
        return { status: 201, body: { message: 'SIP trunk created successfully.', data: sipTrunkResponse(trunk) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'GET',
      path: '/user/phone-numbers/sip-trunks/{id}',
      summary: 'Get one SIP trunk',
      params: IdParams,
      responses: { 200: { description: 'The trunk', schema: Type.Object({ data: SipTrunk }) }, 404: notFound },
      async handle({ auth, params }) {
        return { body: { data: sipTrunkResponse(await getSipTrunk(deps.knex, auth.user.id, params.id)) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'PUT',
      path: '/user/phone-numbers/sip-trunks/{id}',
      summary: 'Update a SIP trunk (partial: only the fields sent change)',
      params: IdParams,
      body: UpdateSipTrunkBody,
      responses: {
        200: { description: 'Updated', schema: Type.Object({ message: Type.Literal('SIP trunk updated successfully.'), data: SipTrunk }) },
        404: notFound,
        409: { description: 'Another trunk has the same phone number, username and address', schema: ErrorBody },
        422: { description: 'Validation failed', schema: ValidationErrorBody },
      },
      errors: ['conflict'],
      async handle({ auth, params, body }) {
        const trunk = await updateSipTrunk(deps, auth.user.id, params.id, body);
        return { body: { message: 'SIP trunk updated successfully.', data: sipTrunkResponse(trunk) } };
      },
    }),
  ];
}
