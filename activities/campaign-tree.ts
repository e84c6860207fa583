import { ApplicationFailure } from '@temporalio/activity';
import { deleteAssets } from '../api/assets/ad-images';
import { ApiError } from '../api/http/errors';
import type { CampaignCreateInput } from '../api/campaigns/schema';
import { accountContextOf } from '../api/campaigns/service';
import { insertAdGroupWithAds, prepareAdGroup, releaseImages, type PreparedAdGroup, type TreeDeps } from '../api/campaigns/tree';
import { isUniqueViolation } from '../lib/db';

/** "About two days in the future, the earliest launch window" (the spec's default start). */
const DEFAULT_START_DELAY_SECONDS = 2 * 24 * 60 * 60;

export interface PersistCampaignTreeInput {
  organizationId: string;
  adAccountId: string;
  campaignId: string;
  body: CampaignCreateInput;
}

/** A spec error found while building the tree (an image that cannot be fetched, say): final, not retried. */
function invalidRequest(err: ApiError): ApplicationFailure {
  return ApplicationFailure.nonRetryable(err.message, 'invalid_request', {
    status: err.status, code: err.code, message: err.message, param: err.param,
  });
}

export function campaignTreeActivities(deps: TreeDeps) {
  const { db, assets } = deps;
  return {
    /**
     * Step 2 of the creation saga: the campaign, its ad groups and ads, and each
     * ad's image as its own asset, in one transaction. Idempotent: the workflow
     * chose the campaign id, so a retry after a commit finds the campaign and stops.
     */
    async persistCampaignTree({ organizationId, adAccountId, campaignId, body }: PersistCampaignTreeInput): Promise<void> {
      if (await db.campaign.findUnique({ where: { id: campaignId }, select: { id: true } })) return;
      const context = await accountContextOf(db, { organizationId, adAccountId });

      // Images are downloaded and checked before the transaction: no I/O while it holds locks.
      const groups: PreparedAdGroup[] = [];
      try {
        for (const [i, group] of body.ad_groups.entries()) groups.push(await prepareAdGroup(deps, context, group, `ad_groups[${i}]`));
      } catch (err) {
        throw err instanceof ApiError ? invalidRequest(err) : err;
      }

      const startTime = body.start_time ?? Math.floor(Date.now() / 1000) + DEFAULT_START_DELAY_SECONDS;
      try {
        await db.$transaction(async (tx) => {
          await tx.campaign.create({
            data: {
              id: campaignId, organizationId, adAccountId,
              name: body.name,
              description: body.description ?? null,
              status: 'paused',
              reviewStatus: 'in_review',
              startTime: new Date(startTime * 1000),
              endTime: body.end_time == null ? null : new Date(body.end_time * 1000),
              lifetimeSpendLimitMicros: BigInt(body.budget.lifetime_spend_limit_micros),
              recurringFrequency: body.recurring_frequency,
              pricingModel: body.pricing_model,
              targetCountries: body.targeting ?? [],
            },
          });
          for (const group of groups) await insertAdGroupWithAds(tx, assets, organizationId, campaignId, group);
        }, { timeout: 60_000 });
      } catch (err) {
        await releaseImages(db, assets, groups.flatMap((g) => g.ads.map((ad) => ad.creative)));
        if (isUniqueViolation(err)) throw ApplicationFailure.nonRetryable('A campaign with that name already exists', 'name_conflict');
        throw err;
      }
    },

    /** Compensation of step 2: removes the tree and its assets (bytes too, when unused). Safe to repeat. */
    async deleteCampaignTree(campaignId: string): Promise<void> {
      const owned = await db.asset.findMany({ where: { ad: { adGroup: { campaignId } } }, select: { id: true } });
      await db.campaign.deleteMany({ where: { id: campaignId } });
      await deleteAssets(db, assets, owned.map((a) => a.id));
    },
  };
}
