import type { Db } from '../../lib/db';
import { DomainError } from '../../domain/errors';
import { isUuid } from '../../domain/ids';
import type { CampaignRow } from '../../domain/campaigns/rows';

/** Any organization's campaign, for staff and operators (404 `not_found` naming it otherwise). */
export async function campaignOf(db: Db, campaignId: string): Promise<CampaignRow> {
  const campaign = isUuid(campaignId) ? await db.campaign.findUnique({ where: { id: campaignId.toLowerCase() } }) : null;
  if (!campaign) throw new DomainError('not_found', `no such campaign: ${campaignId}`, 'campaign_id');
  return campaign;
}
