import type { Client } from '@temporalio/client';
import { temporalConfig } from '../../temporal.config';
import type { CreativeChange, CreativeReviewQueue } from '../../domain/creatives/review';
import { creativeChangedSignal, creativeReview, creativeReviewSignal, creativeReviewWorkflowId } from '../creative-review';

const start = (change: Pick<CreativeChange, 'adId' | 'campaignId'>) => ({
  taskQueue: temporalConfig.taskQueues.main,
  workflowId: creativeReviewWorkflowId(change.adId),
  args: [{ adId: change.adId, campaignId: change.campaignId }] as [{ adId: string; campaignId: string }],
});

/** The review queue the services submit changed creatives to: one review workflow per ad. */
export function temporalCreativeReviews(temporal: Client): CreativeReviewQueue {
  return {
    async submit(change) {
      await temporal.workflow.signalWithStart(creativeReview, {
        ...start(change),
        signal: creativeChangedSignal,
        signalArgs: [{ revision: change.revision }],
      });
    },
  };
}

/** A reviewer's verdict on one revision of an ad's creative: signals (or starts) the ad's review workflow. */
export async function sendCreativeVerdict(
  temporal: Client,
  change: Pick<CreativeChange, 'adId' | 'campaignId'>,
  verdict: { decision: 'approved' | 'rejected'; revision: number; reason?: string },
): Promise<void> {
  await temporal.workflow.signalWithStart(creativeReview, { ...start(change), signal: creativeReviewSignal, signalArgs: [verdict] });
}
