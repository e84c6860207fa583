import { z } from 'zod';
import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import type { Db } from '../../lib/db';
import { insightsQuerySchemaFor, type Level, type RawQuery } from '../../domain/insights/query';
import { parseInsightsRequest, runInsights, type InsightsDeps } from '../../domain/insights/report';
import type { ErrorCode } from '../../lib/http/error-codes';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { organizationOf } from '../auth/api-key-auth';
import { listPageSchema } from '../http/pagination';

/** The insight row as documented (metrics appear when requested; see the spec). */
const insightRowSchema = z.object({
  id: z.string(),
  start_time: z.number().int(),
  end_time: z.number().int(),
  readable_time: z.string().optional(),
  timezone: z.literal('UTC'),
  ad_account_id: z.string().optional(),
  ad_account_name: z.string().optional(),
  campaign_id: z.string().optional(),
  campaign_name: z.string().optional(),
  ad_group_id: z.string().optional(),
  ad_group_name: z.string().optional(),
  ad_id: z.string().optional(),
  ad_name: z.string().optional(),
  source: z.enum(['own', 'external']).optional(),
  country: z.string().optional(),
  device: z.string().optional(),
  impressions: z.number().int().optional(),
  clicks: z.number().int().optional(),
  spend: z.number().optional(),
  ctr: z.number().nullable().optional(),
  cpc: z.number().nullable().optional(),
  cpm: z.number().nullable().optional(),
});
const insightsPageSchema = listPageSchema(insightRowSchema);

const ENDPOINTS: { id: string; level: Level; path: string; param?: string; what: string }[] = [
  { id: 'getAdAccountInsights', level: 'ad_account', path: '/v1/ad_account/insights', what: "the organization's ad account" },
  { id: 'getCampaignInsights', level: 'campaign', path: '/v1/campaigns/:campaign_id/insights', param: 'campaign_id', what: 'a campaign' },
  { id: 'getAdGroupInsights', level: 'ad_group', path: '/v1/ad_groups/:ad_group_id/insights', param: 'ad_group_id', what: 'an ad group' },
  { id: 'getAdInsights', level: 'ad', path: '/v1/ads/:ad_id/insights', param: 'ad_id', what: 'an ad' },
];

/**
 * What an insights request answers once parsed and its entity looked up
 * (domain/insights/report.ts parseInsightsRequest, resolveScope): the insights
 * endpoints and a report export's create alike.
 */
export const INSIGHTS_REQUEST_ERRORS: ErrorCode[] = [
  'invalid_value',
  'aggregation_level_too_high',
  'invalid_time_range',
  'range_too_wide',
  'hourly_range_too_wide',
  'hourly_unsupported_for_external_source',
  'unknown_field',
  'invalid_filter',
  'invalid_filter_operator',
  'too_many_segments',
  'invalid_segment',
  'unsupported_segment',
  'segment_source_unsupported',
  'segment_granularity_unsupported',
  'unsupported_parameter',
  'not_found',
];
/** The spec's insights error table (auth and rate limits come with the `/v1` surface): a page's cursor and the query's time budget besides. */
const INSIGHTS_ERRORS: ErrorCode[] = [...INSIGHTS_REQUEST_ERRORS, 'invalid_cursor', 'analytics_timeout'];

/**
 * The four insights endpoints: same parameters, same list shape, scope from the
 * path. The query is validated by the domain (domain/insights/query.ts): its
 * rules combine parameters and have their own error codes; the same schemas
 * document it.
 */
export function insightsOperations(db: Db, ch: ClickHouseClient = createClickhouse(undefined, { compressResponses: false })): Operation[] {
  const deps = (): InsightsDeps => ({ db, ch, database: config.clickhouse.database, timeoutSeconds: config.insights.queryTimeoutSeconds });
  return ENDPOINTS.map((endpoint) =>
    defineOperation({
      id: endpoint.id,
      method: 'get',
      path: endpoint.path,
      tag: 'Insights',
      auth: 'apiKey',
      summary: `Insights of ${endpoint.what}: impressions, clicks, spend and rates per UTC bucket`,
      query: insightsQuerySchemaFor(endpoint.level),
      handlerValidatesQuery: true,
      success: { status: 200, description: 'A page of insight rows', schema: insightsPageSchema },
      errors: INSIGHTS_ERRORS,
      handle: async (_input, req, res) => {
        const { target, query } = parseInsightsRequest(endpoint.level, endpoint.param ? String(req.params[endpoint.param]) : undefined, req.query as RawQuery);
        return runInsights(deps(), organizationOf(res), target, query);
      },
    }),
  );
}
