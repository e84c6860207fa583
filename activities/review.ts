import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import { approveCampaignCreatives, recordCreativeVerdict, type CreativeVerdictResult } from '../domain/creatives/review';

export function reviewActivities(db: Db, assets: AssetStore) {
  return {
    /**
     * Records the reviewer's verdict; only a campaign still in review changes.
     * Approval also approves every ad's creative as it stands (what serves).
     * True when this call recorded it.
     */
    async setReviewStatus(campaignId: string, reviewStatus: 'approved' | 'rejected', reason: string | null): Promise<boolean> {
      return db.$transaction(async (tx) => {
        const { count } = await tx.campaign.updateMany({
          where: { id: campaignId, reviewStatus: 'in_review' },
          data: { reviewStatus, reviewReason: reason },
        });
        if (count === 1 && reviewStatus === 'approved') await approveCampaignCreatives(tx, campaignId);
        return count === 1;
      });
    },

    /** A reviewer's verdict on one revision of an ad's creative (workflows/creative-review.ts). */
    async recordCreativeVerdict(adId: string, decision: 'approved' | 'rejected', reason: string | null, revision: number): Promise<CreativeVerdictResult> {
      return recordCreativeVerdict(db, assets, adId, decision, reason, revision);
    },
  };
}
