import { Router } from 'express';
import { organizationOf } from '../auth/api-key-auth';
import { presentAd } from '../campaigns/presenters';
import { adCreateSchema, adListFilterSchema, adUpdateSchema } from '../../domain/ads/schema';
import { adListSchema, adSchema } from '../campaigns/resources';
import type { TreeDeps } from '../../domain/campaigns/tree';
import { documentRoute, errorBodySchema, type RouteDoc } from '../../lib/http/openapi';
import { paginationQuerySchema, parsePagination, presentList } from '../http/pagination';
import { bodyObject, parseOrThrow } from '../../domain/validation';
import { createAd, findAd, listAds, setAdStatus, updateAd } from '../../domain/ads/service';

const tag = 'Ads';
const notFound = { description: "not_found: unknown ad, or another organization's", schema: errorBodySchema };
const ACTIONS = { activate: 'active', pause: 'paused', archive: 'archived' } as const;
const imageErrors = 'invalid_value (file_id), invalid_image_url, image_fetch_failed, too_many_redirects, invalid_file, file_too_large, unsupported_mimetype';

documentRoute({
  method: 'get', path: '/v1/ads', tag, auth: 'apiKey', summary: "List an ad group's ads",
  query: paginationQuerySchema.extend(adListFilterSchema.shape),
  responses: {
    200: { description: 'A page of ads', schema: adListSchema },
    400: { description: 'required: ad_group_id; invalid_value: pagination', schema: errorBodySchema },
    404: { description: 'not_found: unknown ad_group_id', schema: errorBodySchema },
  },
});
documentRoute({
  method: 'post', path: '/v1/ads', tag, auth: 'apiKey', summary: 'Create an ad in an ad group', body: adCreateSchema,
  responses: {
    201: { description: 'The ad (active)', schema: adSchema },
    400: { description: `required, invalid_value (creative.type must equal the ad group's), string_too_long, poll_cannot_be_ai, ${imageErrors}`, schema: errorBodySchema },
    404: { description: 'not_found: unknown ad_group_id', schema: errorBodySchema },
  },
});
documentRoute({
  method: 'get', path: '/v1/ads/:ad_id', tag, auth: 'apiKey', summary: 'Retrieve an ad',
  responses: { 200: { description: 'The ad', schema: adSchema }, 404: notFound },
});
documentRoute({
  method: 'post', path: '/v1/ads/:ad_id', tag, auth: 'apiKey',
  summary: 'Update an ad; a new creative replaces the old one, a new file_id or image_url swaps the image',
  body: adUpdateSchema,
  responses: {
    200: { description: 'The ad', schema: adSchema },
    400: { description: `required, invalid_value, string_too_long, campaign_not_approved (status active), ${imageErrors}`, schema: errorBodySchema },
    404: notFound,
  },
});
for (const action of Object.keys(ACTIONS)) {
  const responses: RouteDoc['responses'] = { 200: { description: 'The ad', schema: adSchema }, 404: notFound };
  if (action === 'activate') responses[400] = { description: 'campaign_not_approved: the parent campaign is not approved', schema: errorBodySchema };
  documentRoute({
    method: 'post', path: `/v1/ads/:ad_id/${action}`, tag, auth: 'apiKey', responses,
    summary: `${action[0].toUpperCase()}${action.slice(1)} an ad${action === 'archive' ? ' (reads back paused)' : ''}`,
  });
}


export function adRoutes(deps: TreeDeps): Router {
  const { db } = deps;
  const router = Router();

  router.get('/v1/ads', async (req, res) => {
    const page = parsePagination(req.query);
    const { ad_group_id } = parseOrThrow(adListFilterSchema, { ad_group_id: req.query.ad_group_id });
    res.json(presentList(await listAds(db, organizationOf(res), ad_group_id, page), presentAd));
  });

  router.post('/v1/ads', async (req, res) => {
    const input = parseOrThrow(adCreateSchema, bodyObject(req.body));
    res.status(201).json(presentAd(await createAd(deps, organizationOf(res), input)));
  });

  router.get('/v1/ads/:ad_id', async (req, res) => {
    res.json(presentAd(await findAd(db, organizationOf(res), req.params.ad_id)));
  });

  router.post('/v1/ads/:ad_id', async (req, res) => {
    const input = parseOrThrow(adUpdateSchema, bodyObject(req.body));
    res.json(presentAd(await updateAd(deps, organizationOf(res), req.params.ad_id, input)));
  });

  for (const [action, status] of Object.entries(ACTIONS)) {
    router.post(`/v1/ads/:ad_id/${action}`, async (req, res) => {
      res.json(presentAd(await setAdStatus(deps, organizationOf(res), req.params.ad_id, status)));
    });
  }

  return router;
}
