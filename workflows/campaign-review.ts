import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';

const { setReviewStatus } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export type ReviewStatus = 'approved' | 'rejected';
export interface ReviewDecision {
  decision: ReviewStatus;
  reason?: string;
}

/** A reviewer's verdict: `adctl review`, the Temporal UI or `temporal workflow signal`. */
export const reviewSignal = defineSignal<[ReviewDecision]>('review');

/**
 * A campaign waits here, `in_review`, until a reviewer decides. The first
 * decision wins; rejection is final.
 */
export async function campaignReview(input: { campaignId: string }): Promise<ReviewStatus> {
  let verdict: ReviewDecision | undefined;
  setHandler(reviewSignal, (decision) => {
    if (!verdict && (decision.decision === 'approved' || decision.decision === 'rejected')) verdict = decision;
  });
  await condition(() => verdict !== undefined);
  await setReviewStatus(input.campaignId, verdict!.decision, verdict!.reason ?? null);
  return verdict!.decision;
}

export const campaignReviewWorkflowId = (campaignId: string) => `campaign-review-${campaignId}`;
