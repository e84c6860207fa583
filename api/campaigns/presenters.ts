import { assetUrl } from '../../domain/assets/ad-images';
import type { AdGroupObject, AdObject, CampaignObject, CreativeObject } from './resources';

/**
 * Database rows → the spec's objects. Money is stored as BigInt micros and
 * read back as JSON numbers; times are integer Unix seconds.
 */

import type { AdGroupRow, AdRow, CampaignRow } from '../../domain/campaigns/rows';
import { visibleCampaignStatus } from '../../domain/campaigns/lifecycle';

export const unixSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

/** Archiving an ad group or ad only deactivates it; the API shows it as paused. */
const visibleStatus = (status: string) => (status === 'active' ? 'active' : 'paused');

export function presentTargeting(countryCodes: string[]): CampaignObject['targeting'] {
  return { locations: { include: countryCodes.map((code) => ({ id: code, type: 'country' as const, country_code: code })) } };
}

export function presentCampaign(row: CampaignRow): CampaignObject {
  return {
    id: row.id,
    name: row.name,
    description: row.description ?? null,
    // Completed or blocked campaigns read back as paused (domain/campaigns/lifecycle.ts).
    status: visibleCampaignStatus(row) as CampaignObject['status'],
    review_status: row.reviewStatus as CampaignObject['review_status'],
    start_time: unixSeconds(row.startTime),
    end_time: row.endTime ? unixSeconds(row.endTime) : null,
    budget: { lifetime_spend_limit_micros: Number(row.lifetimeSpendLimitMicros) },
    recurring_frequency: row.recurringFrequency as CampaignObject['recurring_frequency'],
    pricing_model: row.pricingModel as CampaignObject['pricing_model'],
    targeting: presentTargeting(row.targetCountries),
    created_at: unixSeconds(row.createdAt),
    updated_at: unixSeconds(row.updatedAt),
  };
}

export function presentAdGroup(row: AdGroupRow): AdGroupObject {
  return {
    id: row.id,
    campaign_id: row.campaignId,
    name: row.name,
    context_hints: row.contextHints,
    status: visibleStatus(row.status),
    bidding_config: {
      billing_event_type: 'impression',
      max_bid_micros: row.maxBidMicros === null ? null : Number(row.maxBidMicros),
    },
    created_at: unixSeconds(row.createdAt),
    updated_at: unixSeconds(row.updatedAt),
  };
}

export function presentCreative(row: AdRow): CreativeObject {
  if (row.creativeType === 'poll') {
    return { type: 'poll', title: row.title, options: row.options, target_url: row.targetUrl ?? '' };
  }
  return {
    type: 'chat_card',
    title: row.title,
    body: row.body ?? '',
    ...(row.cta ? { cta: row.cta } : {}),
    image_url: row.asset ? assetUrl(row.asset) : null,
  };
}

export function presentAd(row: AdRow): AdObject {
  return {
    id: row.id,
    ad_group_id: row.adGroupId,
    name: row.name,
    status: visibleStatus(row.status),
    review_status: row.adGroup.campaign.reviewStatus as AdObject['review_status'],
    creative: presentCreative(row),
  };
}
