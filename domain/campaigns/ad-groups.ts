import type { Db } from '../../lib/db';
import { invalidValue, notFound } from '../errors';
import { MAX_AD_GROUPS_PER_CAMPAIGN } from '../caps';
import { submitForReview } from '../creatives/review';
import { paginate, type PageRequest } from '../pagination';
import type { AdGroupRow, CampaignRow } from './rows';
import type { Status } from '../schema-rules';
import type { AdGroupCreateInput, AdGroupUpdateInput } from './ad-group-schema';
import { normalizeId } from '../ids';
import { accountContextOf, adGroupStatusLock, findCampaign } from './campaigns';
import { adGroupCreationChanges, insertAdGroupWithAds, prepareAdGroup, prepareScope, releaseImages, type TreeDeps } from './tree';
import { recordChange, recordChanges } from '../audit/log';

export type AdGroupWithCampaign = AdGroupRow & { campaign: CampaignRow };

/** The organization's ad group with its campaign, or 404 `not_found` with `param`. */
export async function findAdGroup(db: Db, organizationId: string, id: unknown, param = 'id'): Promise<AdGroupWithCampaign> {
  const adGroupId = normalizeId(id);
  const adGroup = adGroupId ? await db.adGroup.findFirst({ where: { id: adGroupId, campaign: { organizationId } }, include: { campaign: true } }) : null;
  if (!adGroup) throw notFound('ad group', param);
  return adGroup;
}

export async function listAdGroups(db: Db, organizationId: string, campaignId: string, page: PageRequest) {
  const campaign = await findCampaign(db, organizationId, campaignId);
  const scope = { campaignId: campaign.id };
  return paginate(
    page,
    (id) => db.adGroup.findFirst({ where: { ...scope, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.adGroup.findMany({ where: { AND: [scope, where] }, orderBy, take }),
  );
}

/** A new ad group (and its ads) under one of the organization's campaigns. */
export async function createAdGroup(deps: TreeDeps, organizationId: string, input: AdGroupCreateInput): Promise<AdGroupRow> {
  const { db, assets } = deps;
  const campaign = await findCampaign(db, organizationId, input.campaign_id);
  const group = await prepareAdGroup(prepareScope(deps, await accountContextOf(db, campaign)), input, '');
  let created: { row: AdGroupRow; adIds: string[] };
  try {
    created = await db.$transaction(async (tx) => {
      // Counted under the campaign's row lock, so concurrent creates cannot pass the cap together.
      await tx.$queryRaw`SELECT id FROM campaigns WHERE id = ${campaign.id}::uuid FOR UPDATE`;
      if ((await tx.adGroup.count({ where: { campaignId: campaign.id } })) >= MAX_AD_GROUPS_PER_CAMPAIGN) {
        throw invalidValue('campaign_id', `A campaign holds at most ${MAX_AD_GROUPS_PER_CAMPAIGN} ad groups`);
      }
      const inserted = await insertAdGroupWithAds(tx, assets, organizationId, campaign.id, group);
      await recordChanges(tx, adGroupCreationChanges(organizationId, campaign.id, group, inserted));
      return { row: await tx.adGroup.findUniqueOrThrow({ where: { id: inserted.adGroupId } }), adIds: inserted.adIds };
    });
  } catch (err) {
    await releaseImages(
      db,
      assets,
      group.ads.map((ad) => ad.creative),
    );
    throw err;
  }
  // New ads of an approved campaign serve only once their creative is approved.
  if (campaign.reviewStatus === 'approved') {
    await submitForReview(
      deps.creativeReviews,
      created.adIds.map((adId) => ({ adId, campaignId: campaign.id, revision: 1 })),
    );
  }
  return created.row;
}

/** Only sent fields change; a status change obeys the parent campaign (see adGroupStatusLock). */
export async function updateAdGroup(db: Db, organizationId: string, id: unknown, input: AdGroupUpdateInput): Promise<AdGroupRow> {
  const adGroup = await findAdGroup(db, organizationId, id);
  if (input.status !== undefined) {
    const lock = adGroupStatusLock(adGroup.campaign);
    if (lock) throw lock;
  }
  const maxBid = input.bidding_config?.max_bid_micros;
  const data = {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.context_hints !== undefined && { contextHints: input.context_hints }),
    ...(maxBid !== undefined && { maxBidMicros: maxBid === null ? null : BigInt(maxBid) }),
    ...(input.status !== undefined && { status: input.status }),
  };
  if (Object.keys(data).length === 0) return adGroup;
  return db.$transaction(async (tx) => {
    // Read under the row lock, so the audit entry's before is what this update replaced.
    await tx.$queryRaw`SELECT id FROM ad_groups WHERE id = ${adGroup.id}::uuid FOR UPDATE`;
    const before = await tx.adGroup.findUniqueOrThrow({ where: { id: adGroup.id } });
    const after = await tx.adGroup.update({ where: { id: adGroup.id }, data });
    await recordChange(tx, { organizationId, entity: { type: 'ad_group', id: adGroup.id }, action: 'updated', before, after });
    return after;
  });
}

/** POST activate/pause/archive: the same rule as a status update. */
export const setAdGroupStatus = (db: Db, organizationId: string, id: unknown, status: Status) => updateAdGroup(db, organizationId, id, { status });
