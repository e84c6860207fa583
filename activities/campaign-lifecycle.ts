import type { Db } from '../lib/db';
import { recordCampaignBlock, completeIfBudgetExhausted, completeIfEnded, lifecycleSnapshot, type LifecycleSnapshot } from '../domain/campaigns/lifecycle';

/** The campaign lifecycle workflow's I/O (workflows/campaign-lifecycle.ts); every write is conditional and idempotent. */
export function campaignLifecycleActivities(db: Db) {
  return {
    async campaignLifecycleSnapshot(campaignId: string): Promise<LifecycleSnapshot> {
      return lifecycleSnapshot(db, campaignId);
    },

    /** `asOfMs` is the workflow's clock (its timer fired), so a moved end_time in the row is what decides. */
    async completeCampaignIfEnded(campaignId: string, asOfMs: number): Promise<LifecycleSnapshot> {
      return completeIfEnded(db, campaignId, new Date(asOfMs));
    },

    async completeCampaignIfBudgetExhausted(campaignId: string): Promise<LifecycleSnapshot> {
      return completeIfBudgetExhausted(db, campaignId);
    },

    async recordCampaignBlock(campaignId: string, reason: string): Promise<LifecycleSnapshot> {
      await recordCampaignBlock(db, campaignId, reason);
      return lifecycleSnapshot(db, campaignId);
    },
  };
}
