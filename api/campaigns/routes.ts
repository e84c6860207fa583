import type { Client } from '@temporalio/client';
import type { Db } from '../../lib/db';
import type { Operation } from '../../lib/http/operations';
import { campaignListFilterSchema, campaignUpdateSchema } from '../../domain/campaigns/campaign-schema';
import { findCampaign, listCampaigns } from '../../domain/campaigns/campaigns';
import { changeCampaign, changeCampaignStatus } from '../../use-cases/campaigns/change-campaign';
import { organizationOf } from '../auth/api-key-auth';
import { listOperation, retrieveOperation, updateOperation } from '../http/resource-operations';
import { statusActionOperations } from '../http/status-actions';
import { presentCampaign } from './presenters';
import { campaignListSchema, campaignSchema } from './resources';

const tag = 'Campaigns';

/** Campaign reads, updates and status actions. The create saga lives in create.ts. */
export function campaignOperations(db: Db, temporal: Client): Operation[] {
  const deps = { db, temporal };
  return [
    listOperation({
      id: 'listCampaigns',
      path: '/v1/campaigns',
      tag,
      summary: 'List campaigns, newest first by default',
      filters: campaignListFilterSchema,
      description: 'A page of campaigns',
      schema: campaignListSchema,
      errors: ['invalid_value', 'not_found'],
      load: (organizationId, filters, page) => listCampaigns(db, organizationId, filters.ad_account_id, page),
      present: presentCampaign,
    }),
    retrieveOperation({
      id: 'getCampaign',
      path: '/v1/campaigns/:campaign_id',
      tag,
      summary: 'Retrieve a campaign',
      description: 'The campaign',
      schema: campaignSchema,
      find: (organizationId, id) => findCampaign(db, organizationId, id),
      present: presentCampaign,
    }),
    updateOperation({
      id: 'updateCampaign',
      path: '/v1/campaigns/:campaign_id',
      tag,
      summary: 'Update a campaign; only sent fields change',
      body: campaignUpdateSchema,
      description: 'The updated campaign',
      schema: campaignSchema,
      errors: ['use_status_action', 'invalid_value', 'required', 'string_too_long', 'not_found', 'name_conflict'],
      update: (organizationId, id, body) => changeCampaign(deps, organizationId, id, body),
      present: presentCampaign,
    }),
    ...statusActionOperations({
      noun: 'campaign',
      path: '/v1/campaigns/:campaign_id',
      tag,
      schema: campaignSchema,
      errors: { activate: ['campaign_not_approved', 'campaign_terminal'], pause: ['campaign_not_running'], archive: ['cannot_archive'] },
      apply: (organizationId, id, action) => changeCampaignStatus(deps, organizationId, id, action),
      present: presentCampaign,
      organizationOf,
    }),
  ];
}
