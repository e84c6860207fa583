import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import type { Db } from '../../lib/db';
import { campaignReviewWorkflowId, reviewSignal, type ReviewStatus } from '../campaign-review';
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
