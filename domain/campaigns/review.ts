import type { Db } from '../../lib/db';
import type { Actor } from '../../lib/actor';
import { approveCampaignCreatives } from '../creatives/review';
import { recordChange } from '../audit/log';

/** The review workflow, for a verdict whose signal names no reviewer (the Temporal UI or CLI). */
const REVIEW_ACTOR: Actor = { type: 'system', id: 'campaign-review' };

/**
 * Records a reviewer's verdict on a campaign; only a campaign still in review
 * changes. Approval also approves every ad's creative as it stands (what
 * serves). True when this call recorded it.
 */
export async function recordCampaignReview(
  db: Db,
  campaignId: string,
  reviewStatus: 'approved' | 'rejected',
  reason: string | null,
  reviewer: Actor | null = null,
): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const { count } = await tx.campaign.updateMany({ where: { id: campaignId, reviewStatus: 'in_review' }, data: { reviewStatus, reviewReason: reason } });
    if (count === 1 && reviewStatus === 'approved') await approveCampaignCreatives(tx, campaignId);
    if (count === 1) {
      const { organizationId } = await tx.campaign.findUniqueOrThrow({ where: { id: campaignId }, select: { organizationId: true } });
      await recordChange(tx, {
        organizationId,
        entity: { type: 'campaign', id: campaignId },
        action: 'reviewed',
        before: { reviewStatus: 'in_review', reviewReason: null },
        after: { reviewStatus, reviewReason: reason },
        actor: reviewer ?? REVIEW_ACTOR,
      });
    }
    return count === 1;
  });
}
