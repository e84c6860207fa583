import { adCreateSchema, adListFilterSchema, adUpdateSchema } from '../../domain/campaigns/ad-schema';
import { createAd, findAd, listAds, setAdStatus, updateAd } from '../../domain/campaigns/ads';
import type { TreeDeps } from '../../domain/campaigns/tree';
import type { Operation } from '../../lib/http/operations';
import { organizationOf } from '../auth/api-key-auth';
import { presentAd } from '../campaigns/presenters';
import { adListSchema, adSchema } from '../campaigns/resources';
import { IMAGE_ERRORS } from '../creatives/image-errors';
import { createOperation, listOperation, retrieveOperation, updateOperation } from '../http/resource-operations';
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
    createOperation({
      id: 'createAd',
      path: '/v1/ads',
      tag,
      summary: 'Create an ad in an ad group',
      body: adCreateSchema,
      description: 'The ad (active)',
      schema: adSchema,
      links: adLinks,
      errors: ['required', 'string_too_long', 'poll_cannot_be_ai', ...IMAGE_ERRORS, 'not_found'],
      create: (organizationId, body) => createAd(deps, organizationId, body),
      present: presentAd,
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
    updateOperation({
      id: 'updateAd',
      path: '/v1/ads/:ad_id',
      tag,
      summary: 'Update an ad; a new creative replaces the old one, a new file_id or image_url swaps the image',
      body: adUpdateSchema,
      description: 'The ad',
      schema: adSchema,
      errors: ['required', 'string_too_long', 'campaign_not_approved', ...IMAGE_ERRORS, 'not_found'],
      update: (organizationId, id, body) => updateAd(deps, organizationId, id, body),
      present: presentAd,
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
