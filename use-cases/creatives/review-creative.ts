import { DomainError } from '../../domain/errors';
import { currentActor } from '../../lib/actor';
import { isUuid } from '../../domain/ids';
import { pendingCreativeReview } from '../../domain/creatives/review';
import { sendCreativeVerdict } from '../../workflows/clients/creative-review';
import { campaignSearchOf } from '../../domain/campaigns/search';
import type { UseCaseDeps } from '../deps';

/** How long a verdict waits to be recorded. */
const VERDICT_WAIT_MS = 30_000;

/**
 * A reviewer's verdict on an ad's pending creative (`adctl review
 * approve-ad|reject-ad`): the ad's review workflow gets it, for the revision
 * reviewed (default: the current one), and this waits until it is recorded.
 * The same signal can come from the Temporal UI or CLI:
 * `temporal workflow signal --workflow-id creative-review-<ad id> --name review --input '{"decision":"approved","revision":2}'`.
 */
export async function reviewCreative({ db, temporal }: UseCaseDeps, adId: string, decision: 'approved' | 'rejected', reason?: string, revision?: number) {
  const pending = isUuid(adId) ? await pendingCreativeReview(db, adId.toLowerCase()) : null;
  if (!pending) throw new DomainError('not_found', `ad ${adId} has no creative waiting for review`, 'ad_id');
  const reviewed = revision ?? pending.revision;
  await sendCreativeVerdict(
    temporal,
    { adId: pending.ad_id, campaignId: pending.campaign_id },
    { decision, revision: reviewed, ...(reason ? { reason } : {}), reviewer: currentActor() },
    await campaignSearchOf(db, pending.campaign_id),
  );
  // The workflow's activity records the verdict: wait for the row to show it.
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
