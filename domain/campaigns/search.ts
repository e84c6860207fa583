import type { Db } from '../../lib/db';

/**
 * What operators find a campaign's workflows by in the Temporal UI: every
 * workflow of a campaign (creation, review, lifecycle, creative review)
 * carries these as the search attributes `CampaignId`, `CampaignName` and
 * `OrganizationPublicId` (workflows/search-attributes.ts; docs/operations.md).
 */
export interface CampaignSearch {
  campaignId: string;
  campaignName: string;
  /** The organization's public id (what adctl prints), never the internal one. */
  organizationPublicId: string;
}

/** A campaign's search attributes' values, or null when there is no such campaign. */
export async function campaignSearchOf(db: Db, campaignId: string): Promise<CampaignSearch | null> {
  const row = await db.campaign.findUnique({ where: { id: campaignId }, select: { id: true, name: true, organization: { select: { publicId: true } } } });
  return row ? { campaignId: row.id, campaignName: row.name, organizationPublicId: row.organization.publicId } : null;
}
