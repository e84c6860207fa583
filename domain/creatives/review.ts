import type { Db, Prisma } from '../../lib/db';
import type { Actor } from '../../lib/actor';
import { deleteAssets } from '../assets/ad-images';
import { recordChange } from '../audit/log';
import type { AssetStore } from '../../lib/asset-store';

/**
 * Review of each ad's creative (issue 7, item 3), so an approved campaign
 * cannot swap in content no reviewer saw:
 *  - every ad keeps `approved_creative`, a snapshot of its last approved
 *    creative; that is what may serve (`servableCreative`), never the live
 *    columns;
 *  - approving a campaign approves the creatives of all its ads as they are;
 *  - on an approved campaign, a new ad or a changed creative (title, body, cta,
 *    image, poll title/options/target_url) bumps `creative_revision`, goes
 *    `pending` and is submitted to review (a per-ad review workflow,
 *    workflows/creative-review.ts); the previous approved snapshot keeps
 *    serving, a new ad serves nothing, until a reviewer approves that revision.
 *  - a rejected edit leaves the previous approved version serving.
 */

export type CreativeReviewStatus = 'pending' | 'approved' | 'rejected';

/** An ad's creative as a reviewer approves it and the auction serves it. */
export interface ApprovedCreative {
  type: 'chat_card' | 'poll';
  title: string;
  body: string | null;
  cta: string | null;
  options: string[];
  target_url: string | null;
  image: { asset_id: string; sha256: string; ext: string; mime: string; width: number; height: number } | null;
}

/** An ad row with what a snapshot needs (its asset). */
type AdWithAsset = Prisma.AdGetPayload<{ include: { asset: true } }>;

/** The ad's current creative, as a snapshot. */
export function snapshotOf(ad: AdWithAsset): ApprovedCreative {
  const { asset } = ad;
  return {
    type: ad.creativeType as ApprovedCreative['type'],
    title: ad.title,
    body: ad.body,
    cta: ad.cta,
    options: ad.options,
    target_url: ad.targetUrl,
    image: asset ? { asset_id: asset.id, sha256: asset.sha256, ext: asset.ext, mime: asset.mime, width: asset.width, height: asset.height } : null,
  };
}

/**
 * What the auction may serve for this ad: its last approved creative, or null
 * when no version of it was ever approved (a new ad waiting for review, or a
 * rejected one). The campaign's own gates (approved, active, in flight, in
 * budget) and the ad's and ad group's status are the auction's to check.
 * The image URL is `assetUrl(creative.image)` (domain/assets/ad-images.ts).
 */
export function servableCreative(ad: { approvedCreative: Prisma.JsonValue | null }): ApprovedCreative | null {
  const snapshot = ad.approvedCreative;
  if (!snapshot || typeof snapshot !== 'object' || Array.isArray(snapshot)) return null;
  return snapshot as unknown as ApprovedCreative;
}

/** Whether a new creative differs from the ad's current one in anything a reviewer judges. */
export function creativeChanged(
  current: {
    creativeType: string;
    title: string;
    body: string | null;
    cta: string | null;
    options: string[];
    targetUrl: string | null;
    asset: { sha256: string } | null;
  },
  next: { creativeType: string; title: string; body: string | null; cta: string | null; options: string[]; targetUrl: string | null },
  nextImageSha256: string | null | undefined,
): boolean {
  const imageChanged = nextImageSha256 !== undefined && nextImageSha256 !== (current.asset?.sha256 ?? null);
  return (
    imageChanged ||
    current.creativeType !== next.creativeType ||
    current.title !== next.title ||
    current.body !== next.body ||
    current.cta !== next.cta ||
    current.targetUrl !== next.targetUrl ||
    current.options.join('\u0000') !== next.options.join('\u0000')
  );
}

/** A creative change to review: which ad, of which campaign, at which revision. */
export interface CreativeChange {
  adId: string;
  campaignId: string;
  revision: number;
}

/**
 * Where a changed creative is submitted for review (the Temporal review
 * workflow: workflows/clients/creative-review.ts). Optional in the services'
 * dependencies: without it the change still waits, `pending`, and
 * `adctl review pending` lists it.
 */
export interface CreativeReviewQueue {
  submit(change: CreativeChange): Promise<void>;
}

/** Submits changes after their commit; a failure is logged, the ads stay pending and listed. */
export async function submitForReview(queue: CreativeReviewQueue | undefined, changes: CreativeChange[]): Promise<void> {
  if (!queue) return;
  await Promise.all(
    changes.map((change) => queue.submit(change).catch((err: Error) => console.error(`creative review of ad ${change.adId} not submitted: ${err.message}`))),
  );
}

/**
 * On a campaign's approval (same transaction): every ad's current creative is
 * approved as it stands. Returns the assets of previously approved versions no
 * longer used (to delete after commit).
 */
export async function approveCampaignCreatives(tx: Prisma.TransactionClient, campaignId: string): Promise<string[]> {
  const ads = await tx.ad.findMany({ where: { adGroup: { campaignId } }, include: { asset: true } });
  const orphaned: string[] = [];
  for (const ad of ads) orphaned.push(...(await approveCreative(tx, ad, null)));
  return orphaned;
}

/** Approves the ad's creative as it stands: it becomes the served snapshot. Returns the replaced snapshot's asset, if any (to delete after commit). */
async function approveCreative(tx: Prisma.TransactionClient, ad: AdWithAsset, reason: string | null): Promise<string[]> {
  await tx.ad.update({
    where: { id: ad.id },
    data: {
      creativeReviewStatus: 'approved',
      creativeReviewReason: reason,
      approvedCreative: snapshotOf(ad) as unknown as Prisma.InputJsonValue,
      approvedRevision: ad.creativeRevision,
    },
  });
  return replacedApprovedAsset(ad);
}

/** The asset of the ad's approved snapshot when it is not the ad's current asset (replaced by an edit). */
function replacedApprovedAsset(ad: AdWithAsset): string[] {
  const approved = servableCreative(ad)?.image?.asset_id;
  return approved && approved !== ad.assetId ? [approved] : [];
}

/** Whether `assetId` is still what an ad's approved snapshot serves (then an edit must not delete it). */
export async function isApprovedAsset(db: Db | Prisma.TransactionClient, adId: string, assetId: string): Promise<boolean> {
  const ad = await db.ad.findUnique({ where: { id: adId }, select: { approvedCreative: true } });
  return servableCreative(ad ?? { approvedCreative: null })?.image?.asset_id === assetId;
}

export type CreativeVerdictResult = CreativeReviewStatus | 'stale';

/**
 * A reviewer's verdict on revision `revision` of an ad's creative. Only the
 * revision the reviewer saw can be approved: when the advertiser changed it
 * since, nothing happens (`stale`) and the newer revision waits for its own
 * review. Approval replaces the served snapshot; rejection keeps it.
 */
export async function recordCreativeVerdict(
  db: Db,
  store: AssetStore,
  adId: string,
  decision: 'approved' | 'rejected',
  reason: string | null,
  revision: number,
  reviewer: Actor | null = null,
): Promise<CreativeVerdictResult> {
  const orphaned: string[] = [];
  const result = await db.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM ads WHERE id = ${adId}::uuid FOR UPDATE`;
    const ad = await tx.ad.findUnique({ where: { id: adId }, include: { asset: true } });
    if (!ad) return 'stale';
    if (ad.creativeRevision !== revision) return 'stale';
    if (ad.creativeReviewStatus !== 'pending') return ad.creativeReviewStatus as CreativeReviewStatus;
    const { campaign } = await tx.adGroup.findUniqueOrThrow({
      where: { id: ad.adGroupId },
      select: { campaign: { select: { id: true, organizationId: true } } },
    });
    await recordChange(tx, {
      organizationId: campaign.organizationId,
      campaignId: campaign.id,
      entity: { type: 'ad', id: ad.id },
      action: 'reviewed',
      before: { creativeReviewStatus: 'pending', creativeReviewReason: ad.creativeReviewReason },
      after: { creativeReviewStatus: decision, creativeReviewReason: reason },
      // The review workflow, for a verdict whose signal names no reviewer (the Temporal UI or CLI).
      actor: reviewer ?? { type: 'system', id: 'creative-review' },
    });
    if (decision === 'rejected') {
      await tx.ad.update({ where: { id: ad.id }, data: { creativeReviewStatus: 'rejected', creativeReviewReason: reason } });
      return 'rejected';
    }
    orphaned.push(...(await approveCreative(tx, ad, reason)));
    return 'approved';
  });
  await deleteAssets(db, store, orphaned).catch((err: Error) => console.error(`replaced approved asset not deleted: ${err.message}`));
  return result;
}

/** What reviewers see for a pending ad: the version that serves now and the one waiting. */
export interface PendingCreativeReview {
  ad_id: string;
  campaign_id: string;
  revision: number;
  serving: ApprovedCreative | null;
  proposed: ApprovedCreative;
  /** The fields that differ (`new ad` when nothing was approved yet). */
  changed: string[];
}

export function pendingReviewOf(ad: AdWithAsset & { adGroup: { campaignId: string } }): PendingCreativeReview {
  const serving = servableCreative(ad);
  const proposed = snapshotOf(ad);
  const changed = serving
    ? (Object.keys(proposed) as (keyof ApprovedCreative)[]).filter((key) =>
        key === 'image' ? (serving.image?.sha256 ?? null) !== (proposed.image?.sha256 ?? null) : JSON.stringify(serving[key]) !== JSON.stringify(proposed[key]),
      )
    : ['new ad'];
  return { ad_id: ad.id, campaign_id: ad.adGroup.campaignId, revision: ad.creativeRevision, serving, proposed, changed };
}

/** Ads of approved campaigns whose current creative waits for review, oldest change first. */
export async function pendingCreativeReviews(db: Db, campaignId?: string): Promise<PendingCreativeReview[]> {
  const ads = await db.ad.findMany({
    where: { creativeReviewStatus: 'pending', adGroup: { campaign: { reviewStatus: 'approved', ...(campaignId && { id: campaignId }) } } },
    include: { asset: true, adGroup: { select: { campaignId: true } } },
    orderBy: [{ updatedAt: 'asc' }, { id: 'asc' }],
  });
  return ads.map(pendingReviewOf);
}

/** One pending review, or null when the ad is unknown or not pending. */
export async function pendingCreativeReview(db: Db, adId: string): Promise<PendingCreativeReview | null> {
  const ad = await db.ad.findUnique({ where: { id: adId }, include: { asset: true, adGroup: { select: { campaignId: true } } } });
  return ad && ad.creativeReviewStatus === 'pending' ? pendingReviewOf(ad) : null;
}
