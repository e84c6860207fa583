import type { CampaignSearch } from '../domain/campaigns/search';

/**
 * The search attributes every workflow of a campaign carries (registered by
 * scripts/bootstrap.sh on the dev server; docs/operations.md for a cluster):
 * all Keyword, so `CampaignName = 'Spring shoes'` matches the name exactly.
 */
export const CAMPAIGN_SEARCH_ATTRIBUTES = ['CampaignId', 'CampaignName', 'OrganizationPublicId'] as const;

export type CampaignSearchAttributes = Partial<Record<(typeof CAMPAIGN_SEARCH_ATTRIBUTES)[number], string[]>>;

export function campaignSearchAttributes(search: CampaignSearch): CampaignSearchAttributes {
  return { CampaignId: [search.campaignId], CampaignName: [search.campaignName], OrganizationPublicId: [search.organizationPublicId] };
}

/** The campaign attributes among `own` (a workflow's own, for the children it starts), those it has. */
export function campaignAttributesOf(own: Record<string, unknown> | undefined): CampaignSearchAttributes {
  const picked: CampaignSearchAttributes = {};
  for (const name of CAMPAIGN_SEARCH_ATTRIBUTES) {
    const value = own?.[name];
    if (Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === 'string')) picked[name] = value;
  }
  return picked;
}
