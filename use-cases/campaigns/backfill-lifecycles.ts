import { startCampaignLifecycle } from '../../workflows/clients/campaign-lifecycle';
import type { UseCaseDeps } from '../deps';

/**
 * Starts the lifecycle workflow of every approved campaign that may still serve
 * and has none (those approved before the workflow existed, or whose start was
 * lost): `adctl lifecycle backfill`. Safe to repeat: running ones are left alone.
 */
export async function backfillCampaignLifecycles({ db, temporal }: UseCaseDeps, organizationId?: string): Promise<{ campaigns: number; started: number }> {
  const campaigns = await db.campaign.findMany({
    where: { reviewStatus: 'approved', lifecycleState: null, status: { not: 'archived' }, ...(organizationId ? { organizationId } : {}) },
    select: { id: true, name: true, organization: { select: { publicId: true } } },
    orderBy: { id: 'asc' },
  });
  let started = 0;
  // A few at a time: each is one round trip to Temporal.
  const queue = [...campaigns];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let c = queue.shift(); c !== undefined; c = queue.shift()) {
        const search = { campaignId: c.id, campaignName: c.name, organizationPublicId: c.organization.publicId };
        if ((await startCampaignLifecycle(temporal, c.id, search)).started) started += 1;
      }
    }),
  );
  return { campaigns: campaigns.length, started };
}
