import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import { recordCampaignReview } from '../domain/campaigns/review';
import { recordCreativeVerdict, type CreativeVerdictResult } from '../domain/creatives/review';

/** The review workflows' writes (workflows/campaign-review.ts, workflows/creative-review.ts). */
export function reviewActivities(db: Db, assets: AssetStore) {
  return {
    setReviewStatus: (campaignId: string, reviewStatus: 'approved' | 'rejected', reason: string | null): Promise<boolean> =>
      recordCampaignReview(db, campaignId, reviewStatus, reason),
    recordCreativeVerdict: (adId: string, decision: 'approved' | 'rejected', reason: string | null, revision: number): Promise<CreativeVerdictResult> =>
      recordCreativeVerdict(db, assets, adId, decision, reason, revision),
  };
}
