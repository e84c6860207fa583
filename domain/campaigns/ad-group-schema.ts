import { z } from 'zod';
import { adInputSchema, type AdInput } from './ad-schema';
import { MAX_ADS_PER_AD_GROUP, MAX_DISTINCT_IMAGES_PER_REQUEST } from '../caps';
import { MAX_BID_MICROS } from '../money';
import { fail, MAX_NAME, resourceId, statusInput, type Ctx } from '../schema-rules';

const maxBidMicros = z.int().min(1).max(MAX_BID_MICROS);

/**
 * At most MAX_DISTINCT_IMAGES_PER_REQUEST distinct images (by file_id or
 * image_url) over all these groups' ads: 400 `invalid_value` on the image
 * field of the first ad naming one more. `groupPath` gives each group's path.
 */
export function refineDistinctImages(groups: { ads: AdInput[] }[], groupPath: (i: number) => PropertyKey[], ctx: Ctx): void {
  const seen = new Set<string>();
  for (const [g, group] of groups.entries()) {
    for (const [i, ad] of group.ads.entries()) {
      const creative = ad.creative;
      if (creative.type !== 'chat_card') continue;
      const field = creative.file_id !== undefined ? 'file_id' : creative.image_url !== undefined ? 'image_url' : null;
      if (!field) continue;
      seen.add(`${field}:${creative[field]}`);
      if (seen.size > MAX_DISTINCT_IMAGES_PER_REQUEST) {
        fail(ctx, 'invalid_value', `A request may name at most ${MAX_DISTINCT_IMAGES_PER_REQUEST} distinct images`, [
          ...groupPath(g),
          'ads',
          i,
          'creative',
          field,
        ]);
        return;
      }
    }
  }
}

const adsSchema = z
  .array(adInputSchema)
  .min(1)
  .max(MAX_ADS_PER_AD_GROUP)
  .describe(`1 to ${MAX_ADS_PER_AD_GROUP} ads; the group may hold at most ${MAX_ADS_PER_AD_GROUP} in all`)
  .superRefine((ads, ctx) => {
    if (new Set(ads.map((ad) => ad?.creative?.type)).size > 1) {
      fail(ctx, 'invalid_value', 'All ads of an ad group must share one creative type');
    }
  });

const adGroupName = z.string().min(1).max(MAX_NAME);
/** An ad group's hints (also what a relevance test may try instead of the saved ones: domain/relevance/hint-test.ts). */
/** Bounds the spec leaves open (docs/api-behaviour.md): each hint is read by the relevance model when the auction's index loads. */
export const MAX_CONTEXT_HINTS = 50;
export const MAX_CONTEXT_HINT_CHARS = 200;
export const contextHints = z
  .array(z.string().min(1).max(MAX_CONTEXT_HINT_CHARS))
  .max(MAX_CONTEXT_HINTS)
  .describe(`Hints steering which conversations the ads serve in (at most ${MAX_CONTEXT_HINTS}, each at most ${MAX_CONTEXT_HINT_CHARS} characters)`);

const biddingConfigSchema = z.strictObject({
  // Echoes the read-back shape; impressions are the only billing event.
  billing_event_type: z.literal('impression').optional(),
  max_bid_micros: maxBidMicros.nullable().optional().describe('1 to 100000000; null or omitted leaves it unset'),
});

/** An ad group inside `POST /v1/campaigns`: name and hints are optional there. */
export const nestedAdGroupInputSchema = z.strictObject({
  name: adGroupName.optional(),
  context_hints: contextHints.optional(),
  bidding_config: biddingConfigSchema.optional(),
  ads: adsSchema,
});

/** `POST /v1/ad_groups`. */
export const adGroupCreateSchema = z
  .strictObject({
    campaign_id: resourceId('campaign'),
    name: adGroupName,
    context_hints: contextHints.min(1),
    bidding_config: biddingConfigSchema.optional(),
    ads: adsSchema,
  })
  .superRefine((group, ctx) => refineDistinctImages([group], () => [], ctx));
export type AdGroupCreateInput = z.output<typeof adGroupCreateSchema>;

/** What both ad group creates share; tree.ts builds an ad group from it. */
export interface AdGroupInput {
  name: string;
  context_hints?: string[];
  bidding_config?: { max_bid_micros?: number | null };
  ads: AdInput[];
}

/** `POST /v1/ad_groups/{id}`: `context_hints` replaces the set. */
export const adGroupUpdateSchema = z.strictObject({
  name: adGroupName.optional(),
  context_hints: contextHints.min(1).optional(),
  bidding_config: biddingConfigSchema.optional(),
  status: statusInput.optional(),
});
export type AdGroupUpdateInput = z.output<typeof adGroupUpdateSchema>;
export const adGroupListFilterSchema = z.object({ campaign_id: resourceId('campaign') });
