import { condition, defineQuery, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Actor } from '../lib/actor';
import type { CreativeVerdictResult } from '../domain/creatives/review';

const { recordCreativeVerdict } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export interface CreativeReviewInput {
  adId: string;
  campaignId: string;
}

/** The advertiser changed the creative (or added the ad): `revision` waits for review. */
export const creativeChangedSignal = defineSignal<[{ revision: number }]>('creativeChanged');

/** A reviewer's verdict on the revision they saw (`adctl review approve-ad|reject-ad`). */
export interface CreativeDecision {
  decision: 'approved' | 'rejected';
  revision: number;
  reason?: string;
  /** Who decided (the audit log's actor); absent from the Temporal UI or CLI. */
  reviewer?: Actor;
}
export const creativeReviewSignal = defineSignal<[CreativeDecision]>('review');

/** The newest revision submitted to this review (for the Temporal UI and CLI). */
export const pendingRevisionQuery = defineQuery<number>('pendingRevision');

/**
 * The review of one ad's changed creative on an approved campaign (a new ad
 * is revision 1). The approved version keeps serving meanwhile. A verdict
 * counts only for the revision the reviewer saw: if the advertiser changed
 * the creative again, the workflow keeps waiting for a verdict on the newest.
 * One run per ad at a time (workflow id `creative-review-<ad id>`); a change
 * after it ended starts a new run.
 */
export async function creativeReview({ adId }: CreativeReviewInput): Promise<CreativeVerdictResult> {
  let latest = 0;
  let verdict: CreativeDecision | undefined;
  setHandler(creativeChangedSignal, ({ revision }) => {
    latest = Math.max(latest, revision);
  });
  setHandler(creativeReviewSignal, (decision) => {
    if (!verdict && (decision.decision === 'approved' || decision.decision === 'rejected') && Number.isInteger(decision.revision)) {
      verdict = decision;
    }
  });
  setHandler(pendingRevisionQuery, () => latest);
  for (;;) {
    await condition(() => verdict !== undefined);
    const decided = verdict!;
    verdict = undefined;
    const result = await recordCreativeVerdict(adId, decided.decision, decided.reason ?? null, decided.revision, decided.reviewer ?? null);
    if (result !== 'stale' && decided.revision >= latest) return result;
  }
}

export const creativeReviewWorkflowId = (adId: string) => `creative-review-${adId}`;
