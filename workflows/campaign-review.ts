import { condition, defineSignal, ParentClosePolicy, proxyActivities, setHandler, startChild, workflowInfo, WorkflowIdReusePolicy } from '@temporalio/workflow';
import type { Activities } from '../activities';
import type { Actor } from '../lib/actor';
import { campaignLifecycle, campaignLifecycleWorkflowId } from './campaign-lifecycle';
import { campaignAttributesOf } from './search-attributes';

const { setReviewStatus } = proxyActivities<Activities>({
  startToCloseTimeout: '30 seconds',
  retry: { maximumAttempts: 10 },
});

export type ReviewStatus = 'approved' | 'rejected';
export interface ReviewDecision {
  decision: ReviewStatus;
  reason?: string;
  /** Who decided (the audit log's actor); absent from the Temporal UI or CLI. */
  reviewer?: Actor;
}

/** A reviewer's verdict: `adctl review`, the Temporal UI or `temporal workflow signal`. */
export const reviewSignal = defineSignal<[ReviewDecision]>('review');

/**
 * A campaign waits here, `in_review`, until a reviewer decides. The first
 * decision wins; rejection is final.
 */
export async function campaignReview(input: { campaignId: string }): Promise<ReviewStatus> {
  let verdict: ReviewDecision | undefined;
  setHandler(reviewSignal, (decision) => {
    if (!verdict && (decision.decision === 'approved' || decision.decision === 'rejected')) verdict = decision;
  });
  await condition(() => verdict !== undefined);
  const recorded = await setReviewStatus(input.campaignId, verdict!.decision, verdict!.reason ?? null, verdict!.reviewer ?? null);
  if (recorded && verdict!.decision === 'approved') await startLifecycle(input.campaignId);
  return verdict!.decision;
}

/**
 * An approved campaign's lifecycle workflow, outliving this one (ABANDON).
 * One per campaign ever: a second start is refused and ignored.
 */
async function startLifecycle(campaignId: string): Promise<void> {
  try {
    await startChild(campaignLifecycle, {
      workflowId: campaignLifecycleWorkflowId(campaignId),
      args: [{ campaignId }],
      parentClosePolicy: ParentClosePolicy.ABANDON,
      workflowIdReusePolicy: WorkflowIdReusePolicy.ALLOW_DUPLICATE_FAILED_ONLY,
      // The review's own campaign attributes (from its start): the UI finds the lifecycle by the same name and ids.
      searchAttributes: campaignAttributesOf(workflowInfo().searchAttributes),
    });
  } catch (err) {
    // By name: the class lives in @temporalio/common, which this package does not depend on directly.
    if ((err as Error).name !== 'WorkflowExecutionAlreadyStartedError') throw err;
  }
}

export const campaignReviewWorkflowId = (campaignId: string) => `campaign-review-${campaignId}`;
