import { recordCampaignBlock, visibleCampaignStatus } from '../../domain/campaigns/lifecycle';
import { signalBlock } from '../../workflows/clients/campaign-lifecycle';
import type { UseCaseDeps } from '../deps';
import { campaignOf } from './campaign-of';

/**
 * A reviewer's block (`adctl review block`, the dashboard's review queue):
 * written at once, whatever the campaign's state, so it stops serving as soon
 * as the auction's index reloads (the update notifies it), even if no worker
 * runs; then the lifecycle workflow, if one runs, records it and ends.
 */
export async function blockCampaign({ db, temporal }: UseCaseDeps, campaignId: string, reason: string) {
  const campaign = await campaignOf(db, campaignId);
  const blocked = await recordCampaignBlock(db, campaign.id, reason);
  await signalBlock(temporal, campaign.id, blocked.lifecycleReason ?? reason);
  return {
    campaign_id: blocked.id,
    status: visibleCampaignStatus(blocked),
    lifecycle_state: blocked.lifecycleState,
    reason: blocked.lifecycleReason,
  };
}
