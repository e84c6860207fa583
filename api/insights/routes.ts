import { Router, type Request, type Response } from 'express';
import { z } from 'zod';
import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../../lib/config';
import { createClickhouse } from '../../lib/clickhouse/client';
import type { Db } from '../../lib/db';
import { insightsQuerySchema, parseInsightsQuery, type Level, type RawQuery } from '../../domain/insights/query';
import { runInsights, type InsightsDeps } from '../../domain/insights/report';
import { organizationOf } from '../auth/api-key-auth';
import { documentRoute, errorBodySchema } from '../../lib/http/openapi';

/** The insight row as documented (metrics appear when requested; see the spec). */
const insightRowSchema = z.object({
  id: z.string(),
  start_time: z.number().int(),
  end_time: z.number().int(),
  readable_time: z.string().optional(),
  timezone: z.literal('UTC'),
  ad_account_id: z.string().optional(), ad_account_name: z.string().optional(),
  campaign_id: z.string().optional(), campaign_name: z.string().optional(),
  ad_group_id: z.string().optional(), ad_group_name: z.string().optional(),
  ad_id: z.string().optional(), ad_name: z.string().optional(),
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
const insightsPageSchema = z.object({
  object: z.literal('list'),
  data: z.array(insightRowSchema),
  count: z.number().int(),
  first_id: z.string().nullable(),
  last_id: z.string().nullable(),
  has_more: z.boolean(),
});

const ENDPOINTS: { level: Level; path: string; param?: string; what: string }[] = [
  { level: 'ad_account', path: '/v1/ad_account/insights', what: "the organization's ad account" },
  { level: 'campaign', path: '/v1/campaigns/:campaign_id/insights', param: 'campaign_id', what: 'a campaign' },
  { level: 'ad_group', path: '/v1/ad_groups/:ad_group_id/insights', param: 'ad_group_id', what: 'an ad group' },
  { level: 'ad', path: '/v1/ads/:ad_id/insights', param: 'ad_id', what: 'an ad' },
];

const BAD_REQUEST_CODES = 'invalid_value, aggregation_level_too_high, invalid_time_range, range_too_wide, hourly_range_too_wide, '
  + 'hourly_unsupported_for_external_source, unknown_field, invalid_filter, invalid_filter_operator, too_many_segments, '
  + 'invalid_segment, unsupported_segment, segment_source_unsupported, segment_granularity_unsupported, invalid_cursor, unsupported_parameter';

for (const endpoint of ENDPOINTS) {
  documentRoute({
    method: 'get', path: endpoint.path, tag: 'Insights', auth: 'apiKey',
    summary: `Insights of ${endpoint.what}: impressions, clicks, spend and rates per UTC bucket`,
    query: insightsQuerySchema,
    responses: {
      200: { description: 'A page of insight rows', schema: insightsPageSchema },
      400: { description: BAD_REQUEST_CODES, schema: errorBodySchema },
      404: { description: `not_found: ${endpoint.param ? 'unknown id, or another organization\'s' : 'the organization has no ad account'}`, schema: errorBodySchema },
      504: { description: 'analytics_timeout: narrow the scope, window or granularity and retry', schema: errorBodySchema },
    },
  });
}

/** The four insights endpoints: same parameters, same list shape, scope from the path. */
export function insightsRoutes(db: Db, ch: ClickHouseClient = createClickhouse()): Router {
  const router = Router();
  const deps = (): InsightsDeps => ({ db, ch, database: config.clickhouse.database, timeoutSeconds: config.insights.queryTimeoutSeconds });
  for (const endpoint of ENDPOINTS) {
    router.get(endpoint.path, async (req: Request, res: Response) => {
      const query = parseInsightsQuery(req.query as RawQuery, endpoint.level);
      const target = { level: endpoint.level, id: endpoint.param ? String(req.params[endpoint.param]) : undefined };
      res.json(await runInsights(deps(), organizationOf(res), target, query));
    });
  }
  return router;
}
