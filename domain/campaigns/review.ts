import type { Db } from '../../lib/db';
import { approveCampaignCreatives } from '../creatives/review';

/**
 * Records a reviewer's verdict on a campaign; only a campaign still in review
 * changes. Approval also approves every ad's creative as it stands (what
 * serves). True when this call recorded it.
 */
export async function recordCampaignReview(db: Db, campaignId: string, reviewStatus: 'approved' | 'rejected', reason: string | null): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.campaign.updateMany({ where: { id: campaignId, reviewStatus: 'in_review' }, data: { reviewStatus, reviewReason: reason } });
    if (count === 1 && reviewStatus === 'approved') await approveCampaignCreatives(tx, campaignId);
    return count === 1;
  });
}
