import { ApplicationFailure } from '@temporalio/activity';
import type { billingActivities } from './billing';
import type { OpenCampaignReviewInput, reviewActivities } from './review';

type Billing = Pick<ReturnType<typeof billingActivities>, 'confirmDeposit' | 'recordDeposit'>;
type Reviews = Pick<ReturnType<typeof reviewActivities>, 'openCampaignReview'>;

/** The settlement's failures that are ours, not the payment provider's: the saga answers them 500, not 502. */
const SettlementFailure = { internal: 'internal_error' } as const;

/**
 * The creation saga's last step (workflows/campaign-creation.ts) as one local activity: each
 * step of a local activity costs the saga a hand-off through the SDK, so the charge and what
 * follows it share one. The charge comes first (no review opens for a campaign whose deposit
 * is declined), then its record on the campaign beside the review's start. Every part is
 * idempotent (the confirm's idempotency key, an UPDATE, a review found started), so a retry
 * repeats the whole.
 */
export function settlementActivities(billing: Billing, reviews: Reviews) {
  return {
    async settleCampaignCreation(input: { paymentIntentId: string; idempotencyKey: string; review: OpenCampaignReviewInput }): Promise<void> {
      await billing.confirmDeposit({ paymentIntentId: input.paymentIntentId, idempotencyKey: input.idempotencyKey });
      const settled = await Promise.allSettled([
        billing.recordDeposit(input.review.campaignId, input.paymentIntentId),
        reviews.openCampaignReview(input.review),
      ]);
      const failed = settled.find((result) => result.status === 'rejected');
      if (failed) throw ApplicationFailure.retryable(String((failed.reason as Error)?.message ?? failed.reason), SettlementFailure.internal);
    },
  };
}
