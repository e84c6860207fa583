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
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  let started = 0;
  // A few at a time: each is one round trip to Temporal.
  const queue = campaigns.map((c) => c.id);
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
        if ((await startCampaignLifecycle(temporal, id)).started) started += 1;
      }
    }),
  );
  return { campaigns: campaigns.length, started };
}
