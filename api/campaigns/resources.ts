import { z } from 'zod';
import { listPageSchema } from '../http/pagination';
import { PRICING_MODELS, RECURRING_FREQUENCIES } from '../../domain/campaigns/campaign-schema';
import { STATUSES } from '../../domain/schema-rules';

/** The campaign tree's resources as read back (the OpenAPI document); presenters.ts builds them. */

const unixTime = z.int().describe('Unix seconds (UTC)');
/** Archived ad groups and ads read back as paused. */
const visibleStatus = z.enum(['active', 'paused']);
const reviewStatus = z.enum(['in_review', 'approved', 'rejected']);

export const campaignSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.enum(STATUSES).describe('A completed (end_time reached or budget spent) or blocked campaign reads back as paused: it never serves again'),
  review_status: reviewStatus,
  start_time: unixTime,
  end_time: unixTime.nullable(),
  budget: z.object({ lifetime_spend_limit_micros: z.int() }),
  recurring_frequency: z.enum(RECURRING_FREQUENCIES),
  pricing_model: z.enum(PRICING_MODELS),
  targeting: z.object({
    locations: z.object({
      include: z.array(z.object({ id: z.string(), type: z.literal('country'), country_code: z.string() })),
    }),
  }),
  created_at: unixTime,
  updated_at: unixTime,
});
export type CampaignObject = z.output<typeof campaignSchema>;

export const adGroupSchema = z.object({
  id: z.string(),
  campaign_id: z.string(),
  name: z.string(),
  context_hints: z.array(z.string()),
  status: visibleStatus,
  bidding_config: z.object({ billing_event_type: z.literal('impression'), max_bid_micros: z.int().nullable() }),
  created_at: unixTime,
  updated_at: unixTime,
});
export type AdGroupObject = z.output<typeof adGroupSchema>;

export const creativeSchema = z.discriminatedUnion('type', [
  z.object({
    type: z.literal('chat_card'),
    title: z.string(),
    body: z.string(),
    cta: z.string().optional().describe('Present only when set'),
    image_url: z.string().nullable(),
  }),
  z.object({ type: z.literal('poll'), title: z.string(), options: z.array(z.string()), target_url: z.string() }),
]);
export type CreativeObject = z.output<typeof creativeSchema>;

export const adSchema = z.object({
  id: z.string(),
  ad_group_id: z.string(),
  name: z.string(),
  status: visibleStatus,
  review_status: reviewStatus.describe("The parent campaign's"),
  creative: creativeSchema,
});
export type AdObject = z.output<typeof adSchema>;

export const campaignListSchema = listPageSchema(campaignSchema);
export const adGroupListSchema = listPageSchema(adGroupSchema);
export const adListSchema = listPageSchema(adSchema);
