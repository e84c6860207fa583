import { ApplicationFailure } from '@temporalio/activity';
import { deleteAssets } from '../domain/assets/ad-images';
import { DomainError } from '../domain/errors';
import type { CampaignCreateInput } from '../domain/campaigns/schema';
import { accountContextOf } from '../domain/campaigns/service';
import { insertAdGroupWithAds, prepareAdGroup, prepareScope, releaseImages, type PreparedAdGroup, type TreeDeps } from '../domain/campaigns/tree';
import { isUniqueViolation, type Prisma } from '../lib/db';

/** "About two days in the future, the earliest launch window" (the spec's default start). */
const DEFAULT_START_DELAY_SECONDS = 2 * 24 * 60 * 60;

/** Transaction-scoped lock shared by a campaign's persist and its compensation. */
async function lockCampaignId(tx: Prisma.TransactionClient, campaignId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`campaign:${campaignId}`}, 0))`;
}

export interface PersistCampaignTreeInput {
  organizationId: string;
  adAccountId: string;
  campaignId: string;
  body: CampaignCreateInput;
}

/** A spec error found while building the tree (an image that cannot be fetched, say): final, not retried. */
function invalidRequest(err: DomainError): ApplicationFailure {
  return ApplicationFailure.nonRetryable(err.message, 'invalid_request', {
    code: err.code, message: err.message, param: err.param,
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
      // One scope for the whole tree: an image named by ads of several groups is loaded once.
      const scope = prepareScope(deps, await accountContextOf(db, { organizationId, adAccountId }));

      // Images are downloaded and checked before the transaction: no I/O while it holds locks.
      const groups: PreparedAdGroup[] = [];
      try {
        for (const [i, group] of body.ad_groups.entries()) groups.push(await prepareAdGroup(scope, group, `ad_groups[${i}]`));
      } catch (err) {
        throw err instanceof DomainError ? invalidRequest(err) : err;
      }

      const startTime = body.start_time ?? Math.floor(Date.now() / 1000) + DEFAULT_START_DELAY_SECONDS;
      try {
        await db.$transaction(async (tx) => {
          // Serialized with the compensation: once it has run, this id never commits.
          await lockCampaignId(tx, campaignId);
          if (await tx.campaignTombstone.findUnique({ where: { id: campaignId } })) {
            throw ApplicationFailure.nonRetryable('The creation of this campaign was already rolled back', 'abandoned');
          }
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
        // The transaction rolled back; bytes it wrote may now be unused.
        await releaseImages(db, assets, groups.flatMap((g) => g.ads.map((ad) => ad.creative)));
        if (isUniqueViolation(err)) throw ApplicationFailure.nonRetryable('A campaign with that name already exists', 'name_conflict');
        throw err;
      }
    },

    /**
     * Compensation of step 2: removes the tree and its assets (bytes too, when
     * unused). Assets go first, while the ads still lead to them, so a retry
     * after a failure part-way still finds what is left.
     */
    async deleteCampaignTree(campaignId: string): Promise<void> {
      await db.$transaction(async (tx) => {
        await lockCampaignId(tx, campaignId);
        await tx.campaignTombstone.upsert({ where: { id: campaignId }, create: { id: campaignId }, update: {} });
      });
      const owned = await db.asset.findMany({ where: { ad: { adGroup: { campaignId } } }, select: { id: true } });
      await deleteAssets(db, assets, owned.map((a) => a.id));
      await db.campaign.deleteMany({ where: { id: campaignId } });
    },
  };
}
