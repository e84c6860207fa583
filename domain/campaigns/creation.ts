import { deleteAssets } from '../assets/ad-images';
import { DomainError } from '../errors';
import { isUniqueViolation, type Prisma } from '../../lib/db';
import type { CampaignCreateInput } from './campaign-schema';
import { accountContextOf } from './campaigns';
import { insertAdGroupWithAds, prepareAdGroup, prepareScope, releaseImages, type PreparedAdGroup, type TreeDeps } from './tree';

/**
 * The campaign-creation saga's tree step and its compensation
 * (workflows/campaign-creation.ts), as plain domain work: the activities only
 * adapt its errors to Temporal's.
 */

/** "About two days in the future, the earliest launch window" (the spec's default start). */
const DEFAULT_START_DELAY_SECONDS = 2 * 24 * 60 * 60;

/** Transaction-scoped lock shared by a campaign's persist and its compensation. */
async function lockCampaignId(tx: Prisma.TransactionClient, campaignId: string): Promise<void> {
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`campaign:${campaignId}`}, 0))`;
}

/** The saga rolled this campaign back before its tree was written: it must never be. */
export class CampaignCreationAbandoned extends Error {}

export interface NewCampaignTree {
  organizationId: string;
  adAccountId: string;
  /** Chosen by the saga, so a retry after a commit finds the campaign. */
  campaignId: string;
  body: CampaignCreateInput;
}

/** The campaign row of a new tree: paused and in review, starting about two days out unless told. */
function campaignRow({ organizationId, adAccountId, campaignId, body }: NewCampaignTree): Prisma.CampaignUncheckedCreateInput {
  const startTime = body.start_time ?? Math.floor(Date.now() / 1000) + DEFAULT_START_DELAY_SECONDS;
  return {
    id: campaignId,
    organizationId,
    adAccountId,
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
  };
}

/**
 * The campaign, its ad groups and ads, and each ad's image as its own asset,
 * in one transaction; images are downloaded and checked before it (no I/O
 * while it holds locks). Idempotent: a campaign already there is left as it
 * is. Throws the spec's errors as DomainErrors (`name_conflict` included), and
 * CampaignCreationAbandoned after the compensation has run.
 */
export async function persistCampaignTree(deps: TreeDeps, tree: NewCampaignTree): Promise<void> {
  const { db, assets } = deps;
  // Both reads at once: a retry that finds its campaign wastes one, a first attempt saves a round trip.
  const [existing, account] = await Promise.all([db.campaign.findUnique({ where: { id: tree.campaignId }, select: { id: true } }), accountContextOf(db, tree)]);
  if (existing) return;
  // One scope for the whole tree: an image named by ads of several groups is loaded once.
  const scope = prepareScope(deps, account);
  const groups: PreparedAdGroup[] = [];
  for (const [i, group] of tree.body.ad_groups.entries()) groups.push(await prepareAdGroup(scope, group, `ad_groups[${i}]`));
  try {
    await db.$transaction(
      async (tx) => {
        // Serialized with the compensation: once it has run, this id never commits.
        await lockCampaignId(tx, tree.campaignId);
        if (await tx.campaignTombstone.findUnique({ where: { id: tree.campaignId } })) {
          throw new CampaignCreationAbandoned('The creation of this campaign was already rolled back');
        }
        await tx.campaign.create({ data: campaignRow(tree) });
        for (const group of groups) await insertAdGroupWithAds(tx, assets, tree.organizationId, tree.campaignId, group);
      },
      { timeout: 60_000 },
    );
  } catch (err) {
    // The transaction rolled back; bytes it wrote may now be unused.
    await releaseImages(
      db,
      assets,
      groups.flatMap((g) => g.ads.map((ad) => ad.creative)),
    );
    if (isUniqueViolation(err)) throw new DomainError('name_conflict', 'A campaign with that name already exists', 'name');
    throw err;
  }
}

/**
 * The compensation: removes the tree and its assets (bytes too, when unused),
 * and leaves a tombstone so a late persist never commits. Assets go first,
 * while the ads still lead to them, so a retry after a failure part-way still
 * finds what is left.
 */
export async function deleteCampaignTree(deps: Pick<TreeDeps, 'db' | 'assets'>, campaignId: string): Promise<void> {
  const { db, assets } = deps;
  await db.$transaction(async (tx) => {
    await lockCampaignId(tx, campaignId);
    await tx.campaignTombstone.upsert({ where: { id: campaignId }, create: { id: campaignId }, update: {} });
  });
  const owned = await db.asset.findMany({ where: { ad: { adGroup: { campaignId } } }, select: { id: true } });
  await deleteAssets(
    db,
    assets,
    owned.map((a) => a.id),
  );
  await db.campaign.deleteMany({ where: { id: campaignId } });
}

/** Remembers the charged deposit on the campaign. */
export async function recordCampaignDeposit(db: TreeDeps['db'], campaignId: string, paymentIntentId: string): Promise<void> {
  await db.campaign.updateMany({ where: { id: campaignId }, data: { depositPaymentIntentId: paymentIntentId } });
}
