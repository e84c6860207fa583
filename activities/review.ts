import type { Db } from '../lib/db';

export function reviewActivities(db: Db) {
  return {
    /** Records the reviewer's verdict; only a campaign still in review changes. */
    async setReviewStatus(campaignId: string, reviewStatus: 'approved' | 'rejected', reason: string | null): Promise<void> {
      await db.campaign.updateMany({
        where: { id: campaignId, reviewStatus: 'in_review' },
        data: { reviewStatus, reviewReason: reason },
      });
    },
  };
}
