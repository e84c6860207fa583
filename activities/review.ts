import type { AssetStore } from '../lib/asset-store';
import type { Db } from '../lib/db';
import type { Actor } from '../lib/actor';
import { recordCampaignReview } from '../domain/campaigns/review';
import { recordCreativeVerdict, type CreativeVerdictResult } from '../domain/creatives/review';

/** A campaign's review workflow to start, on the creation saga's task queue, with its search attributes. */
export interface OpenCampaignReviewInput {
  campaignId: string;
  taskQueue: string;
  searchAttributes: Partial<Record<string, string[]>>;
}

/**
 * The creation saga's hold on review workflows, injected by the worker process
 * (it holds the Temporal client): `open` starts a campaign's review or finds it
 * started (by an attempt whose answer was lost); `close` ends it, if there is one.
 */
export interface CampaignReviewWorkflows {
  open(input: OpenCampaignReviewInput): Promise<void>;
  close(campaignId: string): Promise<void>;
}

const cannot = () => Promise.reject(new Error('this worker cannot start or end review workflows (no reviewWorkflows given)'));
const noReviewWorkflows: CampaignReviewWorkflows = { open: cannot, close: cannot };

/** The review workflows' writes (workflows/campaign-review.ts, workflows/creative-review.ts), and the creation saga's review start and its compensation. */
export function reviewActivities(db: Db, assets: AssetStore, reviews: CampaignReviewWorkflows = noReviewWorkflows) {
  return {
    openCampaignReview: (input: OpenCampaignReviewInput): Promise<void> => reviews.open(input),
    closeCampaignReview: (campaignId: string): Promise<void> => reviews.close(campaignId),
    setReviewStatus: (campaignId: string, reviewStatus: 'approved' | 'rejected', reason: string | null, reviewer: Actor | null = null): Promise<boolean> =>
      recordCampaignReview(db, campaignId, reviewStatus, reason, reviewer),
    recordCreativeVerdict: (
      adId: string,
      decision: 'approved' | 'rejected',
      reason: string | null,
      revision: number,
      reviewer: Actor | null = null,
    ): Promise<CreativeVerdictResult> => recordCreativeVerdict(db, assets, adId, decision, reason, revision, reviewer),
  };
}
