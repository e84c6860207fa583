import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../../lib/db';
import { campaignReview, campaignReviewWorkflowId, reviewSignal, type ReviewStatus } from '../campaign-review';
import { temporalConfig } from '../../temporal.config';
import { isUuid } from '../../domain/ids';

/**
 * Signals a campaign's review workflow and waits for it to record the verdict
 * (used by `adctl review`). Reviewers can send the same signal from the
 * Temporal UI or CLI: `temporal workflow signal --workflow-id campaign-review-<id>
 * --name review --input '{"decision":"approved"}'`.
 */
export async function reviewCampaign(db: Db, temporal: Client, campaignId: string, decision: ReviewStatus, reason?: string) {
  const campaign = isUuid(campaignId) ? await db.campaign.findUnique({ where: { id: campaignId.toLowerCase() } }) : null;
  if (!campaign) throw new Error(`no such campaign: ${campaignId}`);
  if (campaign.reviewStatus !== 'in_review') {
    throw new Error(`campaign ${campaign.id} was already reviewed: ${campaign.reviewStatus}`);
  }
  const handle = temporal.workflow.getHandle(campaignReviewWorkflowId(campaign.id));
  try {
    await handle.signal(reviewSignal, { decision, ...(reason ? { reason } : {}) });
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) throw new Error(`campaign ${campaign.id} has no open review`);
    throw err;
  }
  const reviewStatus = await handle.result();
  return { campaign_id: campaign.id, review_status: reviewStatus };
}

/**
 * Starts a campaign's review workflow outside the creation saga (demo data), with
 * the search attributes the saga gives it.
 */
export function startCampaignReview(temporal: Client, campaign: { id: string; name: string; organizationId: string }) {
  return temporal.workflow.start(campaignReview, {
    taskQueue: temporalConfig.taskQueues.main,
    workflowId: campaignReviewWorkflowId(campaign.id),
    args: [{ campaignId: campaign.id }],
    searchAttributes: { CampaignName: [campaign.name], OrganizationId: [campaign.organizationId] },
  });
}
