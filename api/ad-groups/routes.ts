import { adGroupCreateSchema, adGroupListFilterSchema, adGroupUpdateSchema } from '../../domain/campaigns/ad-group-schema';
import { createAdGroup, findAdGroup, listAdGroups, setAdGroupStatus, updateAdGroup } from '../../domain/campaigns/ad-groups';
import type { TreeDeps } from '../../domain/campaigns/tree';
import type { ErrorCode } from '../../lib/http/error-codes';
import type { Operation } from '../../lib/http/operations';
import { organizationOf } from '../auth/api-key-auth';
import { presentAdGroup } from '../campaigns/presenters';
import { adGroupListSchema, adGroupSchema } from '../campaigns/resources';
import { IMAGE_ERRORS } from '../creatives/image-errors';
import { relevanceTestOperation } from './relevance-test';
import { createOperation, listOperation, retrieveOperation, updateOperation } from '../http/resource-operations';
import { resourceLinks, STATUS_OF_ACTION, statusActionOperations } from '../http/status-actions';

const tag = 'Ad groups';
const statusLocked: ErrorCode[] = ['campaign_pending_status_locked', 'campaign_terminal'];

/** Links from a response carrying an ad group to the operations on it. */
const adGroupLinks = (idPointer: string) => resourceLinks('ad group', 'id', idPointer);

export function adGroupOperations(deps: TreeDeps): Operation[] {
  const { db } = deps;
  return [
    listOperation({
      id: 'listAdGroups',
      path: '/v1/ad_groups',
      tag,
      summary: "List a campaign's ad groups, most recent first by default",
      filters: adGroupListFilterSchema,
      description: 'A page of ad groups',
      schema: adGroupListSchema,
      errors: ['required', 'invalid_value', 'not_found'],
      load: (organizationId, filters, page) => listAdGroups(db, organizationId, filters.campaign_id, page),
      present: presentAdGroup,
    }),
    createOperation({
      id: 'createAdGroup',
      path: '/v1/ad_groups',
      tag,
      summary: 'Create an ad group with its ads',
      body: adGroupCreateSchema,
      description: 'The ad group',
      schema: adGroupSchema,
      links: adGroupLinks('$response.body#/id'),
      errors: ['required', 'invalid_value', 'string_too_long', 'poll_cannot_be_ai', ...IMAGE_ERRORS, 'not_found'],
      create: (organizationId, body) => createAdGroup(deps, organizationId, body),
      present: presentAdGroup,
    }),
    retrieveOperation({
      id: 'getAdGroup',
      path: '/v1/ad_groups/:id',
      tag,
      summary: 'Retrieve an ad group',
      description: 'The ad group',
      schema: adGroupSchema,
      find: (organizationId, id) => findAdGroup(db, organizationId, id),
      present: presentAdGroup,
    }),
    updateOperation({
      id: 'updateAdGroup',
      path: '/v1/ad_groups/:id',
      tag,
      summary: 'Update an ad group; only sent fields change',
      body: adGroupUpdateSchema,
      description: 'The ad group',
      schema: adGroupSchema,
      errors: ['invalid_value', 'required', 'string_too_long', ...statusLocked, 'not_found'],
      update: (organizationId, id, body) => updateAdGroup(db, organizationId, id, body),
      present: presentAdGroup,
    }),
    ...statusActionOperations({
      noun: 'ad group',
      path: '/v1/ad_groups/:id',
      tag,
      schema: adGroupSchema,
      errors: { activate: statusLocked, pause: statusLocked, archive: statusLocked },
      summaryNote: { archive: ' (reads back paused)' },
      apply: (organizationId, id, action) => setAdGroupStatus(db, organizationId, id, STATUS_OF_ACTION[action]),
      present: presentAdGroup,
      organizationOf,
    }),
    relevanceTestOperation(db),
  ];
}
