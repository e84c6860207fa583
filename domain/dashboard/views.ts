/**
 * What the dashboard pages show, read from the same domain code as `/v1`:
 * the campaign tree, spend from the shared spend store, numbers from the
 * insights report (domain/insights). Creatives are shown as the chat host
 * would render them, so the image is a same-origin path (`/assets/...`).
 */
import type { Db } from '../../lib/db';
import { accountDisplay } from '../ad-accounts/account';
import { assetKey } from '../assets/ad-images';
import { visibleCampaignStatus } from '../campaigns/lifecycle';
import { findCampaign } from '../campaigns/campaigns';
import { normalizeId } from '../ids';
import { spentMicros } from '../delivery/spend';
import { parseInsightsQuery } from '../insights/query';
import { runInsightsInScope, type InsightsDeps } from '../insights/report';

/** Campaigns on the overview page at most (newest first). */
export const OVERVIEW_LIMIT = 200;
/** Campaigns in the reviewer queue at most (oldest first). */
export const REVIEW_QUEUE_LIMIT = 50;
const DAY_SECONDS = 86_400;

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

type CampaignRowLike = {
  id: string; name: string; status: string; reviewStatus: string; reviewReason: string | null;
  lifecycleState: string | null; lifecycleReason: string | null;
  lifetimeSpendLimitMicros: bigint; startTime: Date; endTime: Date | null; createdAt: Date; targetCountries: string[];
};

function campaignSummary(c: CampaignRowLike, spent: bigint) {
  return {
    id: c.id,
    name: c.name,
    // As /v1 shows it (a completed or blocked campaign reads paused), with the internal state beside it.
    status: visibleCampaignStatus(c),
    lifecycle_state: c.lifecycleState,
    lifecycle_reason: c.lifecycleReason,
    review_status: c.reviewStatus,
    review_reason: c.reviewReason,
    budget_micros: Number(c.lifetimeSpendLimitMicros),
    spent_micros: Number(spent),
    start_time: unix(c.startTime),
    end_time: c.endTime ? unix(c.endTime) : null,
    created_at: unix(c.createdAt),
    target_countries: c.targetCountries,
  };
}

const treeInclude = {
  adGroups: {
    orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }],
    include: { ads: { orderBy: [{ createdAt: 'asc' as const }, { id: 'asc' as const }], include: { asset: { select: { sha256: true, ext: true } } } } },
  },
};

type AdWithAsset = {
  id: string; name: string; status: string; creativeType: string; title: string; body: string | null; cta: string | null;
  options: string[]; targetUrl: string | null; creativeReviewStatus: string; asset: { sha256: string; ext: string } | null;
};
type GroupWithAds = { id: string; name: string; status: string; creativeType: string; contextHints: string[]; maxBidMicros: bigint | null; ads: AdWithAsset[] };

/** An ad as the chat host renders it: a card (title, body, CTA, image) or a poll (question and options). */
function presentAd(ad: AdWithAsset, advertiserUrl: string) {
  return {
    id: ad.id,
    name: ad.name,
    status: ad.status === 'active' ? 'active' : 'paused',
    creative_review_status: ad.creativeReviewStatus,
    creative: ad.creativeType === 'poll'
      ? { type: 'poll' as const, title: ad.title, options: ad.options }
      : { type: 'chat_card' as const, title: ad.title, body: ad.body ?? '', cta: ad.cta, image_path: ad.asset ? `/${assetKey(ad.asset)}` : null },
    landing_url: ad.targetUrl ?? advertiserUrl,
  };
}

function presentTree(groups: GroupWithAds[], advertiserUrl: string) {
  return groups.map((g) => ({
    id: g.id,
    name: g.name,
    status: g.status === 'active' ? 'active' : 'paused',
    creative_type: g.creativeType,
    context_hints: g.contextHints,
    max_bid_micros: g.maxBidMicros === null ? null : Number(g.maxBidMicros),
    ads: g.ads.map((ad) => presentAd(ad, advertiserUrl)),
  }));
}

/** Impressions, clicks and CTR of the trailing 7 days per campaign, one insights report per ad account. */
async function lastSevenDays(deps: InsightsDeps, organizationId: string, accounts: { id: string; name: string }[], now: number) {
  const end = Math.floor(now / 3600) * 3600 + 3600;
  const raw = {
    time_granularity: 'none',
    aggregation_level: 'campaign',
    'time_ranges[]': [JSON.stringify({ type: 'unix_range', start: end - 7 * DAY_SECONDS, end })],
    'fields[]': ['impressions', 'clicks', 'ctr'],
    limit: '2000',
  };
  const byCampaign = new Map<string, { impressions: number; clicks: number; ctr: number | null }>();
  for (const account of accounts) {
    const query = parseInsightsQuery(raw, 'ad_account', now);
    const page = await runInsightsInScope(deps, { scope: { organizationId, adAccountId: account.id }, id: account.id, name: account.name }, 'ad_account', query);
    for (const row of page.data) {
      byCampaign.set(String(row.campaign_id), { impressions: Number(row.impressions), clicks: Number(row.clicks), ctr: row.ctr as number | null });
    }
  }
  return byCampaign;
}

/** The advertiser's overview: every campaign with status, review status, spend against budget and its last 7 days. */
export async function campaignOverview(deps: InsightsDeps, organizationId: string, now = Math.floor(Date.now() / 1000)) {
  const campaigns = await deps.db.campaign.findMany({
    where: { organizationId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: OVERVIEW_LIMIT,
    include: { spend: { select: { spentMicros: true } }, adAccount: { select: { id: true, name: true } } },
  });
  const accounts = [...new Map(campaigns.map((c) => [c.adAccount.id, c.adAccount])).values()];
  const recent = await lastSevenDays(deps, organizationId, accounts, now);
  return {
    campaigns: campaigns.map((c) => ({
      ...campaignSummary(c, c.spend?.spentMicros ?? 0n),
      last_7_days: recent.get(c.id) ?? { impressions: 0, clicks: 0, ctr: null },
    })),
    /** Whether older campaigns were left off (the page says so). */
    truncated: campaigns.length === OVERVIEW_LIMIT,
  };
}

/** One campaign of the organization with its tree (404 `not_found` otherwise). */
export async function campaignDetail(db: Db, organizationId: string, campaignId: unknown) {
  const campaign = await findCampaign(db, organizationId, campaignId);
  const [tree, spent, account] = await Promise.all([
    db.adGroup.findMany({ where: { campaignId: campaign.id }, ...treeInclude.adGroups }),
    spentMicros(db, campaign.id),
    db.adAccount.findUniqueOrThrow({ where: { id: campaign.adAccountId }, include: { organization: { select: { domain: true } } } }),
  ]);
  const advertiser = accountDisplay(account, account.organization.domain);
  return { campaign: { ...campaignSummary(campaign, spent), advertiser }, ad_groups: presentTree(tree, advertiser.url) };
}

export interface ReviewQueueFilter { campaignId?: string; organizationPublicId?: string }
/** Which campaigns a staff list shows: waiting for review, or live (approved, not ended, blocked or archived). */
export type StaffList = 'in_review' | 'live';

/**
 * Campaigns waiting for review (oldest first), or live ones a reviewer may
 * block, with their advertiser and every ad as it would render; narrowed to
 * one campaign or organization when asked (a reviewer following a link, e.g.
 * from the Temporal UI's workflow id).
 */
export async function reviewQueue(db: Db, filter: ReviewQueueFilter = {}, list: StaffList = 'in_review') {
  const campaignId = filter.campaignId === undefined ? undefined : normalizeId(filter.campaignId);
  const orgId = filter.organizationPublicId === undefined ? undefined : normalizeId(filter.organizationPublicId);
  if (campaignId === null || orgId === null) return { campaigns: [] };
  const campaigns = await db.campaign.findMany({
    where: {
      ...(list === 'in_review'
        ? { reviewStatus: 'in_review' }
        : { reviewStatus: 'approved', lifecycleState: null, status: { not: 'archived' } }),
      organization: { deletedAt: null, ...(orgId ? { publicId: orgId } : {}) },
      ...(campaignId ? { id: campaignId } : {}),
    },
    // The queue oldest first (first come, first reviewed); live campaigns newest first.
    orderBy: list === 'in_review' ? [{ createdAt: 'asc' }, { id: 'asc' }] : [{ createdAt: 'desc' }, { id: 'desc' }],
    take: REVIEW_QUEUE_LIMIT,
    include: {
      ...treeInclude,
      organization: { select: { name: true, domain: true } },
      adAccount: { select: { name: true, url: true } },
      spend: { select: { spentMicros: true } },
    },
  });
  return {
    campaigns: campaigns.map((c) => {
      const advertiser = accountDisplay(c.adAccount, c.organization.domain);
      return {
        ...campaignSummary(c, c.spend?.spentMicros ?? 0n),
        organization_name: c.organization.name,
        advertiser,
        ad_groups: presentTree(c.adGroups, advertiser.url),
      };
    }),
  };
}
