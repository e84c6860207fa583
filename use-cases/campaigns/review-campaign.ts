import { DomainError } from '../../domain/errors';
import { currentActor } from '../../lib/actor';
import type { ReviewStatus } from '../../workflows/campaign-review';
import { isReviewOpen, sendReviewVerdict } from '../../workflows/clients/campaign-review';
import type { UseCaseDeps } from '../deps';
import { campaignOf } from './campaign-of';

/**
 * A reviewer's verdict on a campaign in review (`adctl review approve|reject`,
 * the dashboard's review queue): the campaign's review workflow records it
 * (and on approval starts the lifecycle); this waits until it has. Reviewers
 * can send the same signal from the Temporal UI or CLI:
 * `temporal workflow signal --workflow-id campaign-review-<id> --name review --input '{"decision":"approved"}'`.
 */
export async function reviewCampaign({ db, temporal }: UseCaseDeps, campaignId: string, decision: ReviewStatus, reason?: string) {
  const campaign = await campaignOf(db, campaignId);
  if (campaign.reviewStatus !== 'in_review') {
    throw new DomainError('review_closed', `campaign ${campaign.id} was already reviewed: ${campaign.reviewStatus}`);
  }
  // A campaign written straight into the database has no review workflow: an operator must look at it.
  if (!(await isReviewOpen(temporal, campaign.id)))
    throw new DomainError('review_closed', `campaign ${campaign.id} has no open review workflow; an operator must look at it`);
  await sendReviewVerdict(temporal, campaign.id, { decision, ...(reason ? { reason } : {}), reviewer: currentActor() });
  return db.campaign.findUniqueOrThrow({ where: { id: campaign.id } });
}
