import { Router } from 'express';
import type { Db } from '../../lib/db';
import { organizationOf } from '../auth/api-key-auth';
import { documentRoute, errorBodySchema } from '../../lib/http/openapi';
import { paginationQuerySchema, parsePagination, presentList } from '../http/pagination';
import { bodyObject, parseOrThrow } from '../../domain/validation';
import { presentCampaign } from './presenters';
import { campaignListFilterSchema, campaignUpdateSchema } from '../../domain/campaigns/schema';
import { campaignListSchema, campaignSchema } from './resources';
import { applyCampaignAction, findCampaign, listCampaigns, updateCampaign, type CampaignAction } from '../../domain/campaigns/service';

const tag = 'Campaigns';
const notFound = { description: 'not_found: unknown campaign, or another organization\'s', schema: errorBodySchema };

documentRoute({
  method: 'get', path: '/v1/campaigns', tag, auth: 'apiKey', summary: 'List campaigns, newest first by default',
  query: paginationQuerySchema.extend(campaignListFilterSchema.shape),
  responses: {
    200: { description: 'A page of campaigns', schema: campaignListSchema },
    400: { description: 'invalid_value: limit, order or cursors', schema: errorBodySchema },
    404: { description: 'not_found: unknown ad_account_id', schema: errorBodySchema },
  },
});
documentRoute({
  method: 'get', path: '/v1/campaigns/:campaign_id', tag, auth: 'apiKey', summary: 'Retrieve a campaign',
  responses: { 200: { description: 'The campaign', schema: campaignSchema }, 404: notFound },
});
documentRoute({
  method: 'post', path: '/v1/campaigns/:campaign_id', tag, auth: 'apiKey', summary: 'Update a campaign; only sent fields change',
  body: campaignUpdateSchema,
  responses: {
    200: { description: 'The updated campaign', schema: campaignSchema },
    400: { description: 'use_status_action, invalid_value, required or string_too_long', schema: errorBodySchema },
    404: notFound,
    409: { description: 'name_conflict', schema: errorBodySchema },
  },
});
const actionErrors: Record<CampaignAction, string> = {
  activate: 'campaign_not_approved (review not approved) or campaign_terminal (archived)',
  pause: 'campaign_not_running (not active)',
  archive: 'cannot_archive (neither active nor paused)',
};
for (const action of Object.keys(actionErrors) as CampaignAction[]) {
  documentRoute({
    method: 'post', path: `/v1/campaigns/:campaign_id/${action}`, tag, auth: 'apiKey', summary: `${action[0].toUpperCase()}${action.slice(1)} a campaign`,
    responses: {
      200: { description: 'The campaign', schema: campaignSchema },
      400: { description: actionErrors[action], schema: errorBodySchema },
      404: notFound,
    },
  });
}


/** Campaign reads, updates and status actions. The create saga lives in create.ts. */
export function campaignRoutes(db: Db): Router {
  const router = Router();

  router.get('/v1/campaigns', async (req, res) => {
    const page = parsePagination(req.query);
    const { ad_account_id } = parseOrThrow(campaignListFilterSchema, { ad_account_id: req.query.ad_account_id });
    res.json(presentList(await listCampaigns(db, organizationOf(res), ad_account_id, page), presentCampaign));
  });

  router.get('/v1/campaigns/:campaign_id', async (req, res) => {
    res.json(presentCampaign(await findCampaign(db, organizationOf(res), req.params.campaign_id)));
  });

  router.post('/v1/campaigns/:campaign_id', async (req, res) => {
    const input = parseOrThrow(campaignUpdateSchema, bodyObject(req.body));
    res.json(presentCampaign(await updateCampaign(db, organizationOf(res), req.params.campaign_id, input)));
  });

  for (const action of Object.keys(actionErrors) as CampaignAction[]) {
    router.post(`/v1/campaigns/:campaign_id/${action}`, async (req, res) => {
      res.json(presentCampaign(await applyCampaignAction(db, organizationOf(res), req.params.campaign_id, action)));
    });
  }

  return router;
}
