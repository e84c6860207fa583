import { applyCampaignAction, updateCampaign, type CampaignAction } from '../../domain/campaigns/campaigns';
import type { CampaignRow } from '../../domain/campaigns/rows';
import type { CampaignUpdateInput } from '../../domain/campaigns/campaign-schema';
import { campaignLifecycleNotifier } from '../../workflows/clients/campaign-lifecycle';
import type { UseCaseDeps } from '../deps';

/**
 * An advertiser's changes to a campaign (the `/v1` update and status actions,
 * the dashboard's buttons): written, then the campaign's lifecycle workflow is
 * told what concerns it (schedule or budget changed, archived), within a bounded
 * wait that never fails the change (workflows/clients/campaign-lifecycle.ts).
 */
export async function changeCampaign(deps: UseCaseDeps, organizationId: string, id: unknown, input: CampaignUpdateInput): Promise<CampaignRow> {
  const campaign = await updateCampaign(deps.db, organizationId, id, input);
  if (input.start_time !== undefined || input.end_time !== undefined || input.budget) await campaignLifecycleNotifier(deps.temporal).scheduleChanged(campaign);
  return campaign;
}

export async function changeCampaignStatus(deps: UseCaseDeps, organizationId: string, id: unknown, action: CampaignAction): Promise<CampaignRow> {
  const campaign = await applyCampaignAction(deps.db, organizationId, id, action);
  if (action === 'archive') await campaignLifecycleNotifier(deps.temporal).archived(campaign.id);
  return campaign;
}
