/**
 * Ads as the dashboard shows them: the creative that serves (the approved
 * snapshot, what the auction renders), and beside it an edit that waits for
 * review or was rejected. A creative never approved (a campaign in review, a
 * new ad) is shown as submitted. Images are same-origin paths (`/assets/...`),
 * which the dashboard's CSP allows; landing URLs are where a click goes.
 */
import type { Prisma } from '../../lib/db';
import { assetKey } from '../../domain/assets/ad-images';
import { servableCreative, snapshotOf, type ApprovedCreative } from '../../domain/creatives/review';
import { pollTallies } from '../../domain/polls/service';
import { landingUrlOf } from '../../domain/serving/eligibility';

const byCreation = [{ createdAt: 'asc' as const }, { id: 'asc' as const }];

/** What a campaign's query includes to present its tree. */
export const treeInclude = {
  adGroups: { orderBy: byCreation, include: { ads: { orderBy: byCreation, include: { asset: true } } } },
} satisfies Prisma.CampaignInclude;

export type GroupWithAds = Prisma.AdGroupGetPayload<{ include: { ads: { include: { asset: true } } } }>;
type AdWithAsset = GroupWithAds['ads'][number];
type Tallies = Awaited<ReturnType<typeof pollTallies>>;

function presentCreative(c: ApprovedCreative) {
  return c.type === 'poll'
    ? { type: 'poll' as const, title: c.title, options: c.options }
    : { type: 'chat_card' as const, title: c.title, body: c.body ?? '', cta: c.cta, image_path: c.image ? `/${assetKey(c.image)}` : null };
}

/** `advertiserUrl`: the account's website or the organization's domain ('' for neither). */
function presentAd(ad: AdWithAsset, advertiserUrl: string, tallies?: Tallies) {
  const submitted = snapshotOf(ad);
  const approved = servableCreative(ad);
  const shown = approved ?? submitted;
  const landing = (c: ApprovedCreative) => landingUrlOf(c.target_url, advertiserUrl || null, null) ?? '';
  const results = shown.type === 'poll' ? tallies?.get(ad.id) : undefined;
  return {
    id: ad.id,
    name: ad.name,
    status: ad.status === 'active' ? 'active' : 'paused',
    creative_review_status: ad.creativeReviewStatus,
    /** Whether `creative` is an approved version (what serves); false: it waits for its first approval. */
    approved: approved !== null,
    creative: presentCreative(shown),
    landing_url: landing(shown),
    /** A changed creative beside the approved one: waiting for review, or rejected (the approved one keeps serving). */
    edit:
      approved && ad.creativeReviewStatus !== 'approved'
        ? {
            status: ad.creativeReviewStatus,
            reason: ad.creativeReviewReason,
            revision: ad.creativeRevision,
            creative: presentCreative(submitted),
            landing_url: landing(submitted),
          }
        : null,
    ...(results ? { results } : {}),
  };
}

/** A campaign's ad groups and ads; with `tallies`, poll ads carry their per-option results. */
export function presentTree(groups: GroupWithAds[], advertiserUrl: string, tallies?: Tallies) {
  return groups.map((g) => ({
    id: g.id,
    name: g.name,
    status: g.status === 'active' ? 'active' : 'paused',
    creative_type: g.creativeType,
    context_hints: g.contextHints,
    max_bid_micros: g.maxBidMicros === null ? null : Number(g.maxBidMicros),
    ads: g.ads.map((ad) => presentAd(ad, advertiserUrl, tallies)),
  }));
}

/** The per-option results of a tree's poll ads, labelled with the options voters were shown. */
export function treeTallies(db: Parameters<typeof pollTallies>[0], groups: GroupWithAds[]): Promise<Tallies> {
  const polls = groups.flatMap((g) => g.ads).filter((ad) => (servableCreative(ad)?.type ?? ad.creativeType) === 'poll');
  return pollTallies(
    db,
    polls.map((ad) => ({ id: ad.id, options: (servableCreative(ad) ?? ad).options })),
  );
}
