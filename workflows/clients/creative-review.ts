import type { Client } from '@temporalio/client';
import { temporalConfig } from '../../temporal.config';
import type { CreativeChange, CreativeReviewQueue } from '../../domain/creatives/review';
import type { CampaignSearch } from '../../domain/campaigns/search';
import { creativeChangedSignal, creativeReview, creativeReviewSignal, creativeReviewWorkflowId, type CreativeDecision } from '../creative-review';
import { campaignSearchAttributes } from '../search-attributes';

/** A run started here carries its campaign's search attributes (docs/operations.md, Temporal). */
const start = (change: Pick<CreativeChange, 'adId' | 'campaignId'>, search: CampaignSearch | null) => ({
  taskQueue: temporalConfig.taskQueues.main,
  workflowId: creativeReviewWorkflowId(change.adId),
  args: [{ adId: change.adId, campaignId: change.campaignId }] as [{ adId: string; campaignId: string }],
  ...(search ? { searchAttributes: campaignSearchAttributes(search) } : {}),
});

/** Finds a campaign's search attributes' values (domain/campaigns/search.ts over the process's database). */
export type CampaignSearchLookup = (campaignId: string) => Promise<CampaignSearch | null>;

/** The review queue the services submit changed creatives to: one review workflow per ad. */
export function temporalCreativeReviews(temporal: Client, searchOf: CampaignSearchLookup): CreativeReviewQueue {
  return {
    async submit(change) {
      await temporal.workflow.signalWithStart(creativeReview, {
        ...start(change, await searchOf(change.campaignId)),
        signal: creativeChangedSignal,
        signalArgs: [{ revision: change.revision }],
      });
    },
  };
}

/** A reviewer's verdict on one revision of an ad's creative: signals (or starts) the ad's review workflow. */
export async function sendCreativeVerdict(
  temporal: Client,
  change: Pick<CreativeChange, 'adId' | 'campaignId'>,
  verdict: CreativeDecision,
  search: CampaignSearch | null,
): Promise<void> {
  await temporal.workflow.signalWithStart(creativeReview, { ...start(change, search), signal: creativeReviewSignal, signalArgs: [verdict] });
}
