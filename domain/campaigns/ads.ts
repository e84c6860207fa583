import type { Db } from '../../lib/db';
import { deleteAssets } from '../assets/ad-images';
import { findAdGroup, type AdGroupWithCampaign } from './ad-groups';
import { adInclude, type AdRow } from './rows';
import type { Status } from '../schema-rules';
import type { CreativeInput } from '../creatives/schema';
import type { AdCreateInput, AdUpdateInput } from './ad-schema';
import { normalizeId } from '../ids';
import { accountContextOf } from './campaigns';
import {
  adCreationChanges,
  createCreativeAsset,
  creativeColumns,
  insertAds,
  prepareAd,
  prepareCreative,
  prepareScope,
  releaseImages,
  type TreeDeps,
} from './tree';
import { recordChange, recordChanges } from '../audit/log';
import { DomainError, invalidValue, notFound } from '../errors';
import { paginate, type PageRequest } from '../pagination';
import { MAX_ADS_PER_AD_GROUP } from '../caps';
import { creativeChanged, isApprovedAsset, submitForReview } from '../creatives/review';

/** The organization's ad, or 404 `not_found` with `param`. */
export async function findAd(db: Db, organizationId: string, id: unknown, param = 'ad_id'): Promise<AdRow> {
  const adId = normalizeId(id);
  const ad = adId ? await db.ad.findFirst({ where: { id: adId, adGroup: { campaign: { organizationId } } }, include: adInclude }) : null;
  if (!ad) throw notFound('ad', param);
  return ad;
}

export async function listAds(db: Db, organizationId: string, adGroupId: string, page: PageRequest) {
  const adGroup = await findAdGroup(db, organizationId, adGroupId, 'ad_group_id');
  const scope = { adGroupId: adGroup.id };
  return paginate(
    page,
    (id) => db.ad.findFirst({ where: { ...scope, id }, select: { id: true, createdAt: true } }),
    ({ where, orderBy, take }) => db.ad.findMany({ where: { AND: [scope, where] }, orderBy, take, include: adInclude }),
  );
}

/** An ad group never mixes creative types. */
function checkCreativeType(adGroup: AdGroupWithCampaign, creative: CreativeInput): void {
  if (creative.type !== adGroup.creativeType) {
    throw invalidValue('creative.type', `This ad group holds ${adGroup.creativeType} ads; creative.type must be ${adGroup.creativeType}`);
  }
}

const groupContext = (adGroup: AdGroupWithCampaign) => ({ name: adGroup.name, contextHints: adGroup.contextHints });

export async function createAd(deps: TreeDeps, organizationId: string, input: AdCreateInput): Promise<AdRow> {
  const { db, assets } = deps;
  const adGroup = await findAdGroup(db, organizationId, input.ad_group_id, 'ad_group_id');
  checkCreativeType(adGroup, input.creative);
  const ad = await prepareAd(prepareScope(deps, await accountContextOf(db, adGroup.campaign)), groupContext(adGroup), input, '');
  let created: AdRow;
  try {
    created = await db.$transaction(async (tx) => {
      // Counted under the ad group's row lock, so concurrent creates cannot pass the cap together.
      await tx.$queryRaw`SELECT id FROM ad_groups WHERE id = ${adGroup.id}::uuid FOR UPDATE`;
      if ((await tx.ad.count({ where: { adGroupId: adGroup.id } })) >= MAX_ADS_PER_AD_GROUP) {
        throw invalidValue('ad_group_id', `An ad group holds at most ${MAX_ADS_PER_AD_GROUP} ads`);
      }
      const { adIds } = await insertAds(tx, assets, organizationId, adGroup.id, [ad]);
      await recordChanges(tx, adCreationChanges(organizationId, adGroup.id, [ad], adIds));
      return tx.ad.findUniqueOrThrow({ where: { id: adIds[0] }, include: adInclude });
    });
  } catch (err) {
    await releaseImages(db, assets, [ad.creative]);
    throw err;
  }
  // A new ad of an approved campaign serves only once its creative is approved.
  if (adGroup.campaign.reviewStatus === 'approved') {
    await submitForReview(deps.creativeReviews, [{ adId: created.id, campaignId: adGroup.campaignId, revision: created.creativeRevision }]);
  }
  return created;
}

/**
 * Only sent fields change. Activation needs an approved campaign (the spec
 * leaves the error code open; campaign_not_approved, as for campaigns). A new
 * creative image becomes a new asset; the old one is deleted after commit.
 */
export async function updateAd(deps: TreeDeps, organizationId: string, id: unknown, input: AdUpdateInput): Promise<AdRow> {
  const { db, assets } = deps;
  const current = await findAd(db, organizationId, id);
  const adGroup = await findAdGroup(db, organizationId, current.adGroupId);
  if (input.status === 'active' && adGroup.campaign.reviewStatus !== 'approved') {
    throw new DomainError('campaign_not_approved', 'The parent campaign has not been approved yet');
  }
  if (input.creative) checkCreativeType(adGroup, input.creative);
  const creative = input.creative
    ? await prepareCreative(prepareScope(deps, await accountContextOf(db, adGroup.campaign)), groupContext(adGroup), input.creative, false, 'creative')
    : null;
  // A change a reviewer would judge makes a new revision, pending review; the approved one keeps serving.
  const changed =
    creative !== null &&
    creativeChanged(current, creativeColumns(creative), creative.type === 'chat_card' && creative.image ? creative.image.sha256 : undefined);
  let replacedAssetId: string | null = null;
  let updated: AdRow;
  try {
    updated = await db.$transaction(async (tx) => {
      const assetId = creative ? await createCreativeAsset(tx, assets, organizationId, creative) : null;
      if (assetId) {
        // Read the image being replaced under a row lock, so concurrent swaps each delete their own.
        const [locked] = await tx.$queryRaw<{ asset_id: string | null }[]>`SELECT asset_id FROM ads WHERE id = ${current.id}::uuid FOR UPDATE`;
        replacedAssetId = locked?.asset_id ?? null;
      } else await tx.$queryRaw`SELECT id FROM ads WHERE id = ${current.id}::uuid FOR UPDATE`;
      // Read under the row lock, so the audit entry's before is what this update replaced.
      const before = await tx.ad.findUniqueOrThrow({ where: { id: current.id } });
      const after = await tx.ad.update({
        where: { id: current.id },
        data: {
          ...(input.name !== undefined && { name: input.name }),
          ...(input.status !== undefined && { status: input.status }),
          ...(creative && creativeColumns(creative)),
          ...(assetId && { assetId }),
          ...(changed && { creativeRevision: { increment: 1 }, creativeReviewStatus: 'pending', creativeReviewReason: null }),
        },
        include: adInclude,
      });
      await recordChange(tx, { organizationId, entity: { type: 'ad', id: current.id }, action: 'updated', before, after });
      return after;
    });
  } catch (err) {
    if (creative) await releaseImages(db, assets, [creative]);
    throw err;
  }
  if (changed && adGroup.campaign.reviewStatus === 'approved') {
    await submitForReview(deps.creativeReviews, [{ adId: updated.id, campaignId: adGroup.campaignId, revision: updated.creativeRevision }]);
  }
  // The image the approved version serves stays until a newer version is approved.
  if (replacedAssetId && !(await isApprovedAsset(db, current.id, replacedAssetId))) {
    // The update is committed: a failed clean-up must not turn it into an error.
    // The asset row stays (nothing refers to it), so the bytes are not lost track of.
    await deleteAssets(db, assets, [replacedAssetId]).catch((err) => console.error(`replaced asset ${replacedAssetId} not deleted: ${(err as Error).message}`));
  }
  return updated;
}

/** POST activate/pause/archive: the same rules as a status update. */
export const setAdStatus = (deps: TreeDeps, organizationId: string, id: unknown, status: Status) => updateAd(deps, organizationId, id, { status });
