import { z } from 'zod';
import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../../lib/config';
import type { Db } from '../../lib/db';
import { defineOperation, type Operation } from '../../lib/http/operations';
import { campaignDelivery } from '../../domain/serving/diagnostics';
import { ISSUE_CODES } from '../../domain/serving/issue-texts';
import { organizationOf } from '../auth/api-key-auth';

/**
 * `GET /v1/campaigns/{campaign_id}/delivery` (our extension, docs/api-behaviour.md):
 * the campaign's delivery status and the issues that keep it, its ad groups
 * or ads from serving (domain/serving/diagnostics.ts).
 */
const status = z.enum(['delivering', 'limited', 'scheduled', 'not_delivering', 'completed']);
const issue = z.object({
  code: z.enum(ISSUE_CODES as [string, ...string[]]),
  severity: z.enum(['blocking', 'limiting', 'info']),
  message: z.string(),
  action: z.string().optional().describe('What the advertiser can do about it'),
  entity: z.object({ type: z.enum(['campaign', 'ad_group', 'ad']), id: z.string() }),
  details: z
    .record(z.string(), z.union([z.string(), z.number(), z.array(z.string())]))
    .optional()
    .describe(
      'Figures behind the issue, by name, e.g. not_relevant: requests, closest_relevance (the highest relevance, 0..1, its ads scored in the window) and min_relevance (the default bar); outbid: eligible, won, outbid, max_bid_micros, median_winning_price_micros or winning_price_withheld',
    ),
});
const traffic = z.object({
  evaluated: z.number().int().describe('Ad requests in which the in-house bidder looked at these ads (per ad)'),
  eligible: z.number().int(),
  won: z.number().int(),
  outbid: z.number().int(),
  skipped: z.record(z.string(), z.number().int()).describe('Why the bidder passed over them, by reason'),
});
const ad = z.object({ ad_id: z.string(), delivery_status: status, issues: z.array(issue), traffic });
const adGroup = z.object({ ad_group_id: z.string(), delivery_status: status, issues: z.array(issue), traffic, ads: z.array(ad) });
export const campaignDeliverySchema = z.object({
  campaign_id: z.string(),
  delivery_status: status,
  issues: z.array(issue).describe('Every issue of the campaign, its ad groups and ads, blocking first'),
  traffic: traffic.extend({
    window_seconds: z.number().int(),
    invalid_impressions: z.number().int().describe('Impressions recorded as invalid traffic and not billed, in the whole UTC hours of the window'),
    invalid_clicks: z.number().int().describe('Clicks recorded as invalid traffic and not billed, in the whole UTC hours of the window'),
    invalid_traffic: z
      .record(z.string(), z.number().int())
      .describe('Invalid impressions and clicks by reason: bot_user_agent, user_agent_mismatch, network_mismatch, burst (only reasons that occurred)'),
  }),
  ad_groups: z.array(adGroup),
  checked_at: z.number().int().describe('Unix seconds'),
});

export function campaignDeliveryOperation(db: Db, ch: ClickHouseClient): Operation {
  return defineOperation({
    id: 'getCampaignDelivery',
    method: 'get',
    path: '/v1/campaigns/:campaign_id/delivery',
    tag: 'Campaigns',
    auth: 'apiKey',
    summary: 'Why a campaign is or is not delivering: its delivery status and issues, with those of its ad groups and ads (extension)',
    success: { status: 200, description: 'The delivery status and issues', schema: campaignDeliverySchema },
    errors: ['not_found'],
    handle: ({ params }, _req, res) => campaignDelivery({ db, ch, database: config.clickhouse.database }, organizationOf(res), params.campaign_id),
  });
}
