import type { Knex } from 'knex';
import { Type } from '@sinclair/typebox';
import { defineRoute, type RouteDefinition } from '../../api/routing.ts';
import { IdField, IdParams, MessageBody, ValidationErrorBody } from '../../api/schemas.ts';
import type { Clock } from '../../lib/clock.ts';
import type { TemporalClient } from '../../temporal/client.ts';
import { signalCampaign } from '../../temporal/starters.ts';
import { Campaign, CampaignCreated, CampaignUpdated, CampaignWithProgress, CreateCampaignBody, UpdateCampaignBody } from './schemas.ts';
import { campaignItem, campaignWithProgress } from './serialize.ts';
import { campaignTexts, createCampaign, deleteCampaign, getCampaign, listCampaigns, updateCampaign, type CampaignView } from './service.ts';
import { changeCampaignStatus, statusTexts } from './status.ts';

export interface CampaignRouteDeps {
  knex: Knex;
  temporal: TemporalClient;
  /** The instant the next calling window is reckoned from. */
  now: Clock;
}

const TAG = 'Campaigns';
const respond = ({ campaign, phoneNumberIds }: CampaignView) => campaignItem(campaign, phoneNumberIds);

const UpdateStatusBody = Type.Object({
  campaign_id: IdField({ description: 'One of your campaigns.' }),
  action: Type.String({ maxLength: 32, description: '`start` or `stop`.', examples: ['start'] }),
});

const StatusData = Type.Object({ campaign_id: Type.Integer(), status: Type.String() });
const StatusChanged = Type.Object({ message: Type.String(), success: Type.Literal(true), data: StatusData }, { title: 'CampaignStatusChanged' });
const StatusRefused = Type.Object({ message: Type.String(), success: Type.Literal(false), data: Type.Optional(StatusData) }, { title: 'CampaignStatusRefused' });

/**
 * The campaign resource (anchor §7). Starting and stopping start and signal the campaign's workflow
 * (`campaign-<id>`, workflows/campaign.ts).
 */
export function campaignRoutes(deps: CampaignRouteDeps): RouteDefinition[] {
  const { knex, temporal } = deps;
  // Both paths are published: `/user/campaign` by Autocalls, `/user/campaigns` by Famulor.
  const create = (path: string) => defineRoute({
    method: 'POST',
    path,
    tag: TAG,
    summary: path === '/user/campaign' ? 'Create a campaign (draft)' : 'Create a campaign (same as POST /user/campaign)',
    auth: 'bearer',
    body: CreateCampaignBody,
    responses: {
      201: { description: 'Created, as a draft', schema: CampaignCreated },
      403: { description: `The plan's campaign limit is reached: \`${campaignTexts.planLimit}\``, schema: MessageBody },
      404: { description: `\`${campaignTexts.assistantNotFound}\``, schema: MessageBody },
      422: { description: 'Validation failed', schema: ValidationErrorBody },
    },
    errors: ['forbidden', 'not_found'],
    async handle({ auth, body }) {
      return { status: 201, body: { message: 'Campaign created successfully', data: respond(await createCampaign(knex, auth.user.id, body)) } };
    },
  });
  const remove = (path: string) => defineRoute({
    method: 'DELETE',
    path,
    tag: TAG,
    summary: path === '/user/campaign/{id}' ? 'Delete a campaign with its leads; its numbers are released from it' : 'Delete a campaign (same as DELETE /user/campaign/{id})',
    auth: 'bearer',
    params: IdParams,
    responses: {
      200: { description: 'Deleted', schema: Type.Object({ message: Type.Literal('Campaign deleted successfully') }) },
      404: { description: `No such campaign of the caller: \`${campaignTexts.notFound}\``, schema: MessageBody },
    },
    async handle({ auth, params }) {
      await deleteCampaign(knex, temporal, auth.user.id, params.id);
      return { body: { message: 'Campaign deleted successfully' } };
    },
  });

  return [
    // First, so that no `/user/campaigns/{id}` route of another method is ever tried for this path.
    defineRoute({
      method: 'POST',
      path: '/user/campaigns/update-status',
      tag: TAG,
      summary: 'Start or stop a campaign',
      description: 'Starting needs leads still to call and a balance that pays a first minute; the campaign\'s workflow '
        + '(`campaign-<id>` in the Temporal UI) then dials them. Stopping ends the calls in progress politely and dials nothing new.',
      auth: 'bearer',
      body: UpdateStatusBody,
      responses: {
        200: { description: `\`${statusTexts.started}\` or \`${statusTexts.stopped}\``, schema: StatusChanged },
        400: { description: `\`${statusTexts.invalidAction}\`, \`${statusTexts.insufficientBalance}\` (with \`data\`), \`${statusTexts.noLeads}\`, \`${statusTexts.noAssistant}\``, schema: StatusRefused },
        403: { description: `\`${statusTexts.notYours}\``, schema: StatusRefused },
        404: { description: `\`${statusTexts.notFound}\``, schema: StatusRefused },
        422: { description: 'Validation failed', schema: ValidationErrorBody },
      },
      async handle({ auth, body }) {
        const change = await changeCampaignStatus({ knex, temporal }, auth.user.id, body.campaign_id, body.action);
        if (change.outcome === 'refused') {
          return { status: change.httpStatus, body: { message: change.message, success: false as const, ...(change.data ? { data: change.data } : {}) } };
        }
        const message = change.status === 'in-progress' ? statusTexts.started : statusTexts.stopped;
        return { body: { message, success: true as const, data: { campaign_id: change.campaignId, status: change.status } } };
      },
    }),
    create('/user/campaign'),
    create('/user/campaigns'),
    defineRoute({
      method: 'GET',
      path: '/user/campaigns',
      tag: TAG,
      summary: "List the caller's campaigns, oldest first (a bare array)",
      auth: 'bearer',
      responses: { 200: { description: 'The campaigns', schema: Type.Array(Campaign) } },
      async handle({ auth }) {
        return { body: (await listCampaigns(knex, auth.user.id)).map(respond) };
      },
    }),
    defineRoute({
      method: 'GET',
      path: '/user/campaigns/{id}',
      tag: TAG,
      summary: 'Get one campaign with its progress: leads by status, calls in progress, the next calling window',
      auth: 'bearer',
      params: IdParams,
      responses: {
        200: { description: 'The campaign', schema: CampaignWithProgress },
        404: { description: `No such campaign of the caller: \`${campaignTexts.notFound}\``, schema: MessageBody },
      },
      async handle({ auth, params }) {
        const found = await getCampaign(knex, auth.user.id, params.id, deps.now());
        return { body: campaignWithProgress(found.campaign, found.phoneNumberIds, found.progress) };
      },
    }),
    defineRoute({
      method: 'PUT',
      path: '/user/campaigns/{id}',
      tag: TAG,
      summary: 'Update a campaign (partial: only the fields sent change, under the rules of creation)',
      auth: 'bearer',
      params: IdParams,
      body: UpdateCampaignBody,
      responses: {
        200: { description: 'Updated', schema: CampaignUpdated },
        404: { description: `No such campaign of the caller (\`${campaignTexts.notFound}\`), or \`${campaignTexts.assistantNotFound}\``, schema: MessageBody },
        422: { description: 'Validation failed', schema: ValidationErrorBody },
      },
      async handle({ auth, params, body }) {
        const updated = await updateCampaign(knex, auth.user.id, params.id, body);
        if (updated.campaign.status === 'in-progress') await signalCampaign(temporal, params.id, 'settingsChanged');
        return { body: { message: 'Campaign updated successfully', data: respond(updated) } };
      },
    }),
    remove('/user/campaign/{id}'),
    remove('/user/campaigns/{id}'),
  ];
}
