import { adCreateSchema, adListFilterSchema, adUpdateSchema } from '../../domain/campaigns/ad-schema';
import { createAd, findAd, listAds, setAdStatus, updateAd } from '../../domain/campaigns/ads';
import type { TreeDeps } from '../../domain/campaigns/tree';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { organizationOf } from '../auth/api-key-auth';
import { presentAd } from '../campaigns/presenters';
import { adListSchema, adSchema } from '../campaigns/resources';
import { IMAGE_ERRORS } from '../creatives/image-errors';
import { listOperation, retrieveOperation } from '../http/resource-operations';
import { resourceLinks, STATUS_OF_ACTION, statusActionOperations } from '../http/status-actions';

const tag = 'Ads';

const adLinks = resourceLinks('ad', 'ad_id', '$response.body#/id');

export function adOperations(deps: TreeDeps): Operation[] {
  const { db } = deps;
  return [
    listOperation({
      id: 'listAds',
      path: '/v1/ads',
      tag,
      summary: "List an ad group's ads",
      filters: adListFilterSchema,
      description: 'A page of ads',
      schema: adListSchema,
      errors: ['required', 'invalid_value', 'not_found'],
      load: (organizationId, filters, page) => listAds(db, organizationId, filters.ad_group_id, page),
      present: presentAd,
    }),
    defineOperation({
      id: 'createAd',
      method: 'post',
      path: '/v1/ads',
      tag,
      auth: 'apiKey',
      summary: 'Create an ad in an ad group',
      body: adCreateSchema,
      success: { status: 201, description: 'The ad (active)', schema: adSchema, links: adLinks },
      errors: ['required', 'string_too_long', 'poll_cannot_be_ai', ...IMAGE_ERRORS, 'not_found'],
      handle: async ({ body }, _req, res) => presentAd(await createAd(deps, organizationOf(res), body)),
    }),
    retrieveOperation({
      id: 'getAd',
      path: '/v1/ads/:ad_id',
      tag,
      summary: 'Retrieve an ad',
      description: 'The ad',
      schema: adSchema,
      find: (organizationId, id) => findAd(db, organizationId, id),
      present: presentAd,
    }),
    defineOperation({
      id: 'updateAd',
      method: 'post',
      path: '/v1/ads/:ad_id',
      tag,
      auth: 'apiKey',
      summary: 'Update an ad; a new creative replaces the old one, a new file_id or image_url swaps the image',
      body: adUpdateSchema,
      success: { status: 200, description: 'The ad', schema: adSchema },
      errors: ['required', 'string_too_long', 'campaign_not_approved', ...IMAGE_ERRORS, 'not_found'],
      handle: async ({ params, body }, _req, res) => presentAd(await updateAd(deps, organizationOf(res), params.ad_id, body)),
    }),
    ...statusActionOperations({
      noun: 'ad',
      path: '/v1/ads/:ad_id',
      tag,
      schema: adSchema,
      errors: { activate: ['campaign_not_approved'], pause: [], archive: [] },
      summaryNote: { archive: ' (reads back paused)' },
      apply: (organizationId, id, action) => setAdStatus(deps, organizationId, id, STATUS_OF_ACTION[action]),
      present: presentAd,
      organizationOf,
    }),
  ];
}
