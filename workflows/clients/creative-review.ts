import type { Client } from '@temporalio/client';
import type { Db } from '../../lib/db';
import { temporalConfig } from '../../temporal.config';
import { isUuid } from '../../domain/ids';
import { pendingCreativeReview, type CreativeChange, type CreativeReviewQueue } from '../../domain/creatives/review';
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
        ...start(change), signal: creativeChangedSignal, signalArgs: [{ revision: change.revision }],
      });
    },
  };
}

/** How long `adctl review approve-ad` waits for the verdict to be recorded. */
const VERDICT_WAIT_MS = 30_000;

/**
 * A reviewer's verdict on an ad's pending creative (used by `adctl review
 * approve-ad|reject-ad`): signals (or starts) the ad's review workflow with
 * the revision reviewed (default: the current one) and waits until it is
 * recorded. The same signal can come from the Temporal UI or CLI:
 * `temporal workflow signal --workflow-id creative-review-<ad id> --name review
 * --input '{"decision":"approved","revision":2}'`.
 */
export async function reviewCreative(
  db: Db, temporal: Client, adId: string, decision: 'approved' | 'rejected', reason?: string, revision?: number,
) {
  const pending = isUuid(adId) ? await pendingCreativeReview(db, adId.toLowerCase()) : null;
  if (!pending) throw new Error(`ad ${adId} has no creative waiting for review`);
  const reviewed = revision ?? pending.revision;
  await temporal.workflow.signalWithStart(creativeReview, {
    ...start({ adId: pending.ad_id, campaignId: pending.campaign_id }),
    signal: creativeReviewSignal,
    signalArgs: [{ decision, revision: reviewed, ...(reason ? { reason } : {}) }],
  });
  // The verdict is recorded by the workflow's activity: wait for the row to show it.
  const deadline = Date.now() + VERDICT_WAIT_MS;
  for (;;) {
    const ad = await db.ad.findUniqueOrThrow({ where: { id: pending.ad_id } });
    if (ad.creativeRevision !== reviewed) {
      return { ad_id: ad.id, revision: reviewed, creative_review_status: 'stale', current_revision: ad.creativeRevision };
    }
    if (ad.creativeReviewStatus !== 'pending') {
      return { ad_id: ad.id, revision: reviewed, creative_review_status: ad.creativeReviewStatus, changed: pending.changed };
    }
    if (Date.now() > deadline) throw new Error(`the verdict on ad ${ad.id} was not recorded in time; is the worker running?`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
