import type { Db } from '../../lib/db';

/**
 * The shared spend store (PostgreSQL `campaign_spend`). The trackers charge
 * through it (domain/delivery/charge.ts); everything else only reads it.
 */

/** Whether a campaign has spent its whole lifetime budget. */
export async function isBudgetExhausted(db: Db, campaignId: string): Promise<boolean> {
  const campaign = await db.campaign.findUnique({
    where: { id: campaignId },
    select: { lifetimeSpendLimitMicros: true, spend: { select: { spentMicros: true } } },
  });
  if (!campaign) return false;
  return (campaign.spend?.spentMicros ?? 0n) >= campaign.lifetimeSpendLimitMicros;
}

/** What a campaign has been charged so far, in micros. */
export async function spentMicros(db: Db, campaignId: string): Promise<bigint> {
  const row = await db.campaignSpend.findUnique({ where: { campaignId }, select: { spentMicros: true } });
  return row?.spentMicros ?? 0n;
}
