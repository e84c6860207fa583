import { Router } from 'express';
import { organizationOf } from '../auth/api-key-auth';
import { presentAdGroup } from '../campaigns/presenters';
import { adGroupCreateSchema, adGroupListFilterSchema, adGroupUpdateSchema } from '../../domain/ad-groups/schema';
import { adGroupListSchema, adGroupSchema } from '../campaigns/resources';
import type { TreeDeps } from '../../domain/campaigns/tree';
import { documentRoute, errorBodySchema } from '../../lib/http/openapi';
import { paginationQuerySchema, parsePagination, presentList } from '../http/pagination';
import { bodyObject, parseOrThrow } from '../../domain/validation';
import { createAdGroup, findAdGroup, listAdGroups, setAdGroupStatus, updateAdGroup } from '../../domain/ad-groups/service';

const tag = 'Ad groups';
const notFound = { description: "not_found: unknown ad group, or another organization's", schema: errorBodySchema };
const statusLocked = 'campaign_pending_status_locked (campaign in review) or campaign_terminal (campaign archived, rejected or ended)';
const ACTIONS = { activate: 'active', pause: 'paused', archive: 'archived' } as const;

documentRoute({
  method: 'get', path: '/v1/ad_groups', tag, auth: 'apiKey', summary: "List a campaign's ad groups, most recent first by default",
  query: paginationQuerySchema.extend(adGroupListFilterSchema.shape),
  responses: {
    200: { description: 'A page of ad groups', schema: adGroupListSchema },
    400: { description: 'required: campaign_id; invalid_value: pagination', schema: errorBodySchema },
    404: { description: 'not_found: unknown campaign_id', schema: errorBodySchema },
  },
});
documentRoute({
  method: 'post', path: '/v1/ad_groups', tag, auth: 'apiKey', summary: 'Create an ad group with its ads', body: adGroupCreateSchema,
  responses: {
    201: { description: 'The ad group', schema: adGroupSchema },
    400: { description: 'required, invalid_value, string_too_long, poll_cannot_be_ai or an image error', schema: errorBodySchema },
    404: { description: 'not_found: unknown campaign_id', schema: errorBodySchema },
  },
});
documentRoute({
  method: 'get', path: '/v1/ad_groups/:id', tag, auth: 'apiKey', summary: 'Retrieve an ad group',
  responses: { 200: { description: 'The ad group', schema: adGroupSchema }, 404: notFound },
});
documentRoute({
  method: 'post', path: '/v1/ad_groups/:id', tag, auth: 'apiKey', summary: 'Update an ad group; only sent fields change',
  body: adGroupUpdateSchema,
  responses: {
    200: { description: 'The ad group', schema: adGroupSchema },
    400: { description: `invalid_value, required, string_too_long, ${statusLocked}`, schema: errorBodySchema },
    404: notFound,
  },
});
for (const action of Object.keys(ACTIONS)) {
  documentRoute({
    method: 'post', path: `/v1/ad_groups/:id/${action}`, tag, auth: 'apiKey',
    summary: `${action[0].toUpperCase()}${action.slice(1)} an ad group${action === 'archive' ? ' (reads back paused)' : ''}`,
    responses: { 200: { description: 'The ad group', schema: adGroupSchema }, 400: { description: statusLocked, schema: errorBodySchema }, 404: notFound },
  });
}


export function adGroupRoutes(deps: TreeDeps): Router {
  const { db } = deps;
  const router = Router();

  router.get('/v1/ad_groups', async (req, res) => {
    const page = parsePagination(req.query);
    const { campaign_id } = parseOrThrow(adGroupListFilterSchema, { campaign_id: req.query.campaign_id });
    res.json(presentList(await listAdGroups(db, organizationOf(res), campaign_id, page), presentAdGroup));
  });

  router.post('/v1/ad_groups', async (req, res) => {
    const input = parseOrThrow(adGroupCreateSchema, bodyObject(req.body));
    res.status(201).json(presentAdGroup(await createAdGroup(deps, organizationOf(res), input)));
  });

  router.get('/v1/ad_groups/:id', async (req, res) => {
    res.json(presentAdGroup(await findAdGroup(db, organizationOf(res), req.params.id)));
  });

  router.post('/v1/ad_groups/:id', async (req, res) => {
    const input = parseOrThrow(adGroupUpdateSchema, bodyObject(req.body));
    res.json(presentAdGroup(await updateAdGroup(db, organizationOf(res), req.params.id, input)));
  });

  for (const [action, status] of Object.entries(ACTIONS)) {
    router.post(`/v1/ad_groups/:id/${action}`, async (req, res) => {
      res.json(presentAdGroup(await setAdGroupStatus(db, organizationOf(res), req.params.id, status)));
    });
  }

  return router;
}
