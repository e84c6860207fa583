import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import { recordCampaignReview } from '../domain/campaigns/review';
import { recordCreativeVerdict, type CreativeVerdictResult } from '../domain/creatives/review';

/** A campaign's review workflow to start, on the creation saga's task queue, with its search attributes. */
export interface OpenCampaignReviewInput {
  campaignId: string;
  taskQueue: string;
  searchAttributes: Partial<Record<string, string[]>>;
}

/**
 * Starts a campaign's review workflow, or finds it started (by an attempt whose
 * answer was lost): the worker process injects it, as it holds the Temporal client.
 */
export type OpenCampaignReview = (input: OpenCampaignReviewInput) => Promise<void>;

const noReviewStarter: OpenCampaignReview = () => Promise.reject(new Error('this worker cannot start review workflows (no openReview given)'));

/** The review workflows' writes (workflows/campaign-review.ts, workflows/creative-review.ts), and the creation saga's review start. */
export function reviewActivities(db: Db, assets: AssetStore, openReview: OpenCampaignReview = noReviewStarter) {
  return {
    openCampaignReview: (input: OpenCampaignReviewInput): Promise<void> => openReview(input),
    setReviewStatus: (campaignId: string, reviewStatus: 'approved' | 'rejected', reason: string | null): Promise<boolean> =>
      recordCampaignReview(db, campaignId, reviewStatus, reason),
    recordCreativeVerdict: (adId: string, decision: 'approved' | 'rejected', reason: string | null, revision: number): Promise<CreativeVerdictResult> =>
      recordCreativeVerdict(db, assets, adId, decision, reason, revision),
  };
}
