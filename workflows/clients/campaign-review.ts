import { WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError, type Client } from '@temporalio/client';
import { campaignReview, campaignReviewWorkflowId, reviewSignal, type ReviewDecision, type ReviewStatus } from '../campaign-review';
import { temporalConfig } from '../../temporal.config';
import type { CampaignSearch } from '../../domain/campaigns/search';
import { campaignSearchAttributes } from '../search-attributes';

/** Typed start and signal helpers of a campaign's review workflow (workflows/campaign-review.ts). */

/**
 * Starts a campaign's review workflow outside the creation saga (demo data), with
 * the search attributes the saga gives it.
 */
export function startCampaignReview(temporal: Client, campaign: CampaignSearch) {
  return temporal.workflow.start(campaignReview, {
    taskQueue: temporalConfig.taskQueues.main,
    workflowId: campaignReviewWorkflowId(campaign.campaignId),
    args: [{ campaignId: campaign.campaignId }],
    searchAttributes: campaignSearchAttributes(campaign),
  });
}

/**
 * The creation saga's review start (its last step, run by the worker's client):
 * on the saga's task queue, once per campaign ever. A review already there,
 * running or closed, was started by an earlier attempt of the same step.
 */
export async function openCampaignReview(
  temporal: Client,
  review: { campaignId: string; taskQueue: string; searchAttributes: Partial<Record<string, string[]>> },
): Promise<void> {
  try {
    await temporal.workflow.start(campaignReview, {
      taskQueue: review.taskQueue,
      workflowId: campaignReviewWorkflowId(review.campaignId),
      args: [{ campaignId: review.campaignId }],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      searchAttributes: review.searchAttributes,
    });
  } catch (err) {
    if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
  }
}

/**
 * The creation saga's compensation for its review step: ends the campaign's
 * review, if one was started (an attempt whose answer was lost may have), since
 * the campaign it would review is being removed. None there, or one already
 * closed, is the same outcome.
 */
export async function closeCampaignReview(temporal: Client, campaignId: string): Promise<void> {
  try {
    await temporal.workflow.getHandle(campaignReviewWorkflowId(campaignId)).terminate('campaign creation rolled back');
  } catch (err) {
    if (!(err instanceof WorkflowNotFoundError)) throw err;
  }
}

/** Whether the campaign's review workflow is running. */
export async function isReviewOpen(temporal: Client, campaignId: string): Promise<boolean> {
  try {
    const { status } = await temporal.workflow.getHandle(campaignReviewWorkflowId(campaignId)).describe();
    return status.name === 'RUNNING';
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Sends a reviewer's verdict and waits for the workflow to record it: the review status it settled on. */
export async function sendReviewVerdict(temporal: Client, campaignId: string, verdict: ReviewDecision): Promise<ReviewStatus> {
  const handle = temporal.workflow.getHandle<typeof campaignReview>(campaignReviewWorkflowId(campaignId));
  await handle.signal(reviewSignal, verdict);
  return handle.result();
}
