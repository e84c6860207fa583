/**
 * What the dashboard pages show, read from the same domain code as `/v1`:
 * the campaign tree, spend from the shared spend store, numbers from the
 * insights report (domain/insights). Creatives are shown as the chat host
 * would render them, so the image is a same-origin path (`/assets/...`).
 */
import type { Db, Prisma } from '../../lib/db';
import { accountDisplay } from '../../domain/ad-accounts/account';
import { visibleCampaignStatus } from '../../domain/campaigns/lifecycle';
import { findCampaign } from '../../domain/campaigns/campaigns';
import { normalizeId } from '../../domain/ids';
import { spentMicros } from '../../domain/delivery/spend';
import { parseInsightsQuery } from '../../domain/insights/query';
import { runInsightsInScope, type InsightsDeps } from '../../domain/insights/report';
import { diagnose, loadCampaignTrees, type CampaignDelivery, type DeliveryIssue } from '../../domain/serving/diagnostics';
import { presentTree, treeInclude, treeTallies } from './creatives';

/** Campaigns on the overview page at most (newest first). */
export const OVERVIEW_LIMIT = 200;
/** Campaigns in the reviewer queue at most (oldest first). */
export const REVIEW_QUEUE_LIMIT = 50;
const DAY_SECONDS = 86_400;

const unix = (date: Date) => Math.floor(date.getTime() / 1000);

type CampaignRowLike = {
  id: string;
  name: string;
  status: string;
  reviewStatus: string;
  reviewReason: string | null;
  lifecycleState: string | null;
  lifecycleReason: string | null;
  lifetimeSpendLimitMicros: bigint;
  startTime: Date;
  endTime: Date | null;
  createdAt: Date;
  targetCountries: string[];
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

/**
 * Each campaign's delivery (domain/serving/diagnostics.ts) judged on its own
 * state, without the last hour of auctions: one query for every tree and no
 * ClickHouse, so a list of many stays cheap. The campaign page reads it with traffic.
 */
async function deliveryWithoutTraffic(db: Db, campaignIds: string[], nowMs: number): Promise<Map<string, CampaignDelivery>> {
  const trees = await loadCampaignTrees(db, campaignIds);
  return new Map(trees.map((tree) => [tree.id, diagnose(tree, null, nowMs)]));
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
    const page = await runInsightsInScope(
      deps,
      { scope: { organizationId, adAccountId: account.id }, id: account.id, name: account.name },
      'ad_account',
      query,
    );
    for (const row of page.data) {
      byCampaign.set(String(row.campaign_id), { impressions: Number(row.impressions), clicks: Number(row.clicks), ctr: row.ctr as number | null });
    }
  }
  return byCampaign;
}

/**
 * The advertiser's overview: every campaign with status, review status, its
 * delivery status (why it is or is not serving, without the last hour of
 * auctions), spend against budget and its last 7 days.
 */
export async function campaignOverview(deps: InsightsDeps, organizationId: string, now = Math.floor(Date.now() / 1000)) {
  const campaigns = await deps.db.campaign.findMany({
    where: { organizationId },
    orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
    take: OVERVIEW_LIMIT,
    include: { spend: { select: { spentMicros: true } }, adAccount: { select: { id: true, name: true } } },
  });
  const accounts = [...new Map(campaigns.map((c) => [c.adAccount.id, c.adAccount])).values()];
  const [recent, delivery] = await Promise.all([
    lastSevenDays(deps, organizationId, accounts, now),
    deliveryWithoutTraffic(
      deps.db,
      campaigns.map((c) => c.id),
      now * 1000,
    ),
  ]);
  return {
    campaigns: campaigns.map((c) => ({
      ...campaignSummary(c, c.spend?.spentMicros ?? 0n),
      delivery_status: delivery.get(c.id)?.delivery_status ?? 'not_delivering',
      last_7_days: recent.get(c.id) ?? { impressions: 0, clicks: 0, ctr: null },
    })),
    /** Whether older campaigns were left off (the page says so). */
    truncated: campaigns.length === OVERVIEW_LIMIT,
  };
}

/** One campaign of the organization with its tree, poll ads with their per-option results (404 `not_found` otherwise). */
export async function campaignDetail(db: Db, organizationId: string, campaignId: unknown) {
  const campaign = await findCampaign(db, organizationId, campaignId);
  const [groups, spent, account] = await Promise.all([
    db.adGroup.findMany({ where: { campaignId: campaign.id }, ...treeInclude.adGroups }),
    spentMicros(db, campaign.id),
    db.adAccount.findUniqueOrThrow({ where: { id: campaign.adAccountId }, include: { organization: { select: { domain: true } } } }),
  ]);
  const advertiser = accountDisplay(account, account.organization.domain);
  return {
    campaign: { ...campaignSummary(campaign, spent), advertiser },
    ad_groups: presentTree(groups, advertiser.url, await treeTallies(db, groups)),
  };
}

export interface ReviewQueueFilter {
  campaignId?: string;
  organizationPublicId?: string;
}
/**
 * Which campaigns a staff list shows: waiting for review (the campaign itself,
 * or edited creatives of an approved one), or live (approved, not ended,
 * blocked or archived).
 */
export type StaffList = 'in_review' | 'live';

/** Issues a verdict of the queue resolves, or the advertiser's activation right after it: not worth a reviewer's attention. */
const RESOLVED_BY_REVIEW = new Set<DeliveryIssue['code']>(['not_approved', 'creative_not_approved', 'campaign_paused']);

function staffWhere(list: StaffList): Prisma.CampaignWhereInput {
  if (list === 'live') return { reviewStatus: 'approved', lifecycleState: null, status: { not: 'archived' } };
  return { OR: [{ reviewStatus: 'in_review' }, { reviewStatus: 'approved', adGroups: { some: { ads: { some: { creativeReviewStatus: 'pending' } } } } }] };
}

/**
 * Campaigns waiting for review (oldest first), or live ones a reviewer may
 * block, with their advertiser, every ad as it serves (and an edit waiting
 * beside it) and the blocking issues that would keep it from serving once
 * approved; narrowed to one campaign or organization when asked (a reviewer
 * following a link, e.g. from the Temporal UI's workflow id).
 */
export async function reviewQueue(db: Db, filter: ReviewQueueFilter = {}, list: StaffList = 'in_review', now = Date.now()) {
  const campaignId = filter.campaignId === undefined ? undefined : normalizeId(filter.campaignId);
  const orgId = filter.organizationPublicId === undefined ? undefined : normalizeId(filter.organizationPublicId);
  if (campaignId === null || orgId === null) return { campaigns: [] };
  const campaigns = await db.campaign.findMany({
    where: {
      ...staffWhere(list),
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
  const delivery = await deliveryWithoutTraffic(
    db,
    campaigns.map((c) => c.id),
    now,
  );
  return {
    campaigns: campaigns.map((c) => {
      const advertiser = accountDisplay(c.adAccount, c.organization.domain);
      const issues = delivery.get(c.id)?.issues ?? [];
      return {
        ...campaignSummary(c, c.spend?.spentMicros ?? 0n),
        organization_name: c.organization.name,
        advertiser,
        /** What waits for a verdict: the campaign, or edited creatives of an approved one (each ad's `edit`). */
        awaiting: c.reviewStatus === 'in_review' ? ('campaign' as const) : list === 'in_review' ? ('creatives' as const) : null,
        blocking_issues: issues.filter((i) => i.severity === 'blocking' && !(list === 'in_review' && RESOLVED_BY_REVIEW.has(i.code))),
        ad_groups: presentTree(c.adGroups, advertiser.url),
      };
    }),
  };
}
