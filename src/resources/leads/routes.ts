import type { Knex } from 'knex';
import { Type } from '@sinclair/typebox';
import { streamed } from '../../api/middleware/body.ts';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdParams, MessageBody, ValidationErrorBody } from '../../api/schemas.ts';
import { lengthAwarePage } from '../../lib/pagination.ts';
import { campaignTexts } from '../campaigns/service.ts';
import { importLeads, MAX_IMPORT_BYTES } from './import.ts';
import { CreateLeadBody, ImportQuery, ImportReport, LeadCreated, LeadListQuery, LeadPage, UpdateLeadBody } from './schemas.ts';
import { leadItem } from './serialize.ts';
import { createLead, deleteLead, leadTexts, listLeads, updateLead } from './service.ts';

export interface LeadRouteDeps {
  knex: Knex;
  /** Tells the campaign, if it is running, that it has leads to look at. */
  leadsAdded: (campaignId: number) => Promise<void>;
  /** Base URL of the API's clients, for page links. */
  publicUrl: string;
}

const TAG = 'Leads';
const Updated = Type.Object({ message: Type.Literal('Lead updated successfully') });

/** The lead resource (anchor §8) and the CSV import into a campaign. */
export function leadRoutes(deps: LeadRouteDeps): RouteDefinition[] {
  const { knex } = deps;
  // Integrations use all three: the Autocalls page's curl, Famulor's header, and PATCH.
  const update = (method: 'PUT' | 'PATCH', path: string) => defineRoute({
    method,
    path,
    tag: TAG,
    summary: path === '/user/leads/{id}' && method === 'PUT'
      ? 'Update a lead: only campaign_id, phone_number, status and variables (merged) may change'
      : `Update a lead (same as PUT /user/leads/{id})`,
    auth: 'bearer',
    params: IdParams,
    body: UpdateLeadBody,
    responses: {
      200: { description: 'Updated', schema: Updated },
      404: { description: `\`${leadTexts.notFound}\`, or \`${campaignTexts.notFound}\` for a campaign_id not of the caller`, schema: MessageBody },
      422: { description: `Validation failed (\`${leadTexts.invalidNumber}\` on phone_number), or a field that cannot be changed`, schema: ValidationErrorBody },
    },
    async handle({ auth, params, body }) {
      await updateLead(knex, auth.user.id, params.id, body);
      const updated = await knex('leads').where({ id: params.id }).first<{ campaignId: number } | undefined>('campaignId');
      if (updated) await deps.leadsAdded(Number(updated.campaignId));
      return { body: { message: 'Lead updated successfully' } };
    },
  });

  return [
    defineRoute({
      method: 'POST',
      path: '/user/lead',
      tag: TAG,
      summary: 'Create a lead in a campaign, with its secondary contacts',
      auth: 'bearer',
      body: CreateLeadBody,
      responses: {
        200: { description: 'Created (200, as published)', schema: LeadCreated },
        404: { description: `No such campaign of the caller: \`${campaignTexts.notFound}\``, schema: MessageBody },
        422: { description: `Validation failed: \`${leadTexts.invalidNumber}\`, or the campaign already has the number (without allow_dupplicate)`, schema: ValidationErrorBody },
      },
      errors: ['not_found'],
      async handle({ auth, body }) {
        const created = await createLead(knex, auth.user.id, body);
        await deps.leadsAdded(created.lead.campaignId);
        return { body: { message: 'Lead created successfully', data: leadItem(created) } };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/leads',
      tag: TAG,
      summary: "List the caller's leads, newest first, filtered and paginated; secondary contacts are listed within their lead",
      auth: 'bearer',
      query: LeadListQuery,
      responses: { 200: { description: 'A page of leads', schema: LeadPage } },
      async handle({ auth, query, ctx }) {
        const page = { page: query.page ?? 1, perPage: query.per_page ?? 15 };
        const { leads, total } = await listLeads(knex, auth.user.id, query, page);
        return { body: lengthAwarePage({ data: leads.map(leadItem), total, page, path: `${deps.publicUrl}/api/user/leads`, query: ctx.query }) };
      },
    }),
    update('PUT', '/user/leads/{id}'),
    update('PUT', '/leads/{id}'),
    update('PATCH', '/user/leads/{id}'),
    defineRoute({
      method: 'DELETE',
      path: '/user/leads/{id}',
      tag: TAG,
      summary: 'Delete a lead with its secondary contacts',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'Deleted', schema: Type.Object({ message: Type.Literal('Lead deleted successfully') }) },
        404: { description: `No such lead of the caller: \`${leadTexts.notFound}\``, schema: MessageBody },
      },
      async handle({ auth, params }) {
        await deleteLead(knex, auth.user.id, params.id);
        return { body: { message: 'Lead deleted successfully' } };
      },
    }),
    defineRoute({
      method: 'POST',
      path: '/user/campaigns/{id}/leads/import',
      tag: TAG,
      summary: 'Import leads from a CSV file (the request body): a phone_number (or phone, or number) column, the others variables',
      description: 'The file is read and inserted as it arrives, a thousand rows at a time. Rows with an invalid number, and rows whose '
        + 'number the campaign already has (unless allow_dupplicate), are counted and listed by line (the first 100), not created.',
      auth: 'bearer',
      params: IdParams,
      query: ImportQuery,
      bodyKind: streamed({ contentTypes: ['text/csv', 'application/csv', 'text/plain'], maxBytes: MAX_IMPORT_BYTES }),
      responses: {
        200: { description: 'What the import created and why other rows were not', schema: ImportReport },
        404: { description: `No such campaign of the caller: \`${campaignTexts.notFound}\``, schema: MessageBody },
        422: { description: 'No number column in the header row, or a malformed file (the rows before the fault are kept)', schema: ValidationErrorBody },
      },
      async handle({ auth, params, query, bodyStream }) {
        if (!bodyStream) throw new Error('The import route reads a streamed body.');
        const report = await importLeads(knex, auth.user.id, params.id, bodyStream, { allowDuplicates: query.allow_dupplicate ?? false });
        if (report.created > 0) await deps.leadsAdded(params.id);
        const { reasonsOmitted, ...counts } = report;
        return { body: { message: 'Leads imported', ...counts, reasons_omitted: reasonsOmitted } };
      },
    }),
  ];
}
