import type { ClickHouseClient } from '@clickhouse/client';
import type { Db, Prisma } from '../../lib/db';
import { assetUrl } from '../assets/ad-images';
import { servableCreative } from '../creatives/review';
import { notFound } from '../errors';
import { normalizeId } from '../ids';
import { creativeBlock, INHOUSE_SKIPS, landingUrlOf, servingBlocks, type ServableFacts, type ServingBlock } from './eligibility';
import { campaignTraffic, emptyCounts, type AdTraffic, type WinPrice } from './traffic';
import { freshPacingOf } from './pacing-store';
import { campaignInvalidTraffic, type InvalidTrafficCounts } from '../delivery/invalid-traffic';
import { issueText, type IssueCode } from './issue-texts';
import { DEFAULT_MIN_RELEVANCE } from '../relevance/score';

/**
 * Delivery status and issues of a campaign, its ad groups and ads: why an ad
 * is or is not serving, from the same rules the in-house bidder applies
 * (eligibility.ts) and from what the bidder did with each ad in the last hour
 * (traffic.ts). Pure over a loaded tree, so the API, `adctl`, the dashboard
 * and the reviewer queue all show the same answer.
 */
export type DeliveryStatus = 'delivering' | 'limited' | 'scheduled' | 'not_delivering' | 'completed';
export type Severity = 'blocking' | 'limiting' | 'info';
export type EntityType = 'campaign' | 'ad_group' | 'ad';

export interface DeliveryIssue {
  code: IssueCode;
  severity: Severity;
  message: string;
  /** What the advertiser can do about it (absent when nothing is to be done). */
  action?: string;
  entity: { type: EntityType; id: string };
  /** Figures behind the issue (times, counts, prices), by name. */
  details?: Record<string, string | number | string[]>;
}

export interface TrafficSummary {
  /** Requests in which the in-house bidder looked at the entity's ads (an ad counted per request). */
  evaluated: number;
  eligible: number;
  won: number;
  outbid: number;
  /** Why the bidder passed over them, by reason. */
  skipped: Record<string, number>;
}

export interface AdDelivery {
  ad_id: string;
  delivery_status: DeliveryStatus;
  issues: DeliveryIssue[];
  traffic: TrafficSummary;
}
export interface AdGroupDelivery {
  ad_group_id: string;
  delivery_status: DeliveryStatus;
  issues: DeliveryIssue[];
  traffic: TrafficSummary;
  ads: AdDelivery[];
}
export interface CampaignDelivery {
  campaign_id: string;
  delivery_status: DeliveryStatus;
  /** Every issue of the campaign, its ad groups and ads, blocking first. */
  issues: DeliveryIssue[];
  /** The window's traffic; invalid impressions and clicks (not billed: domain/delivery/invalid-traffic.ts) in whole UTC hours. */
  traffic: TrafficSummary & { window_seconds: number } & Partial<InvalidTrafficCounts>;
  ad_groups: AdGroupDelivery[];
  checked_at: number;
}

/** The traffic window the diagnostics read. */
export const TRAFFIC_WINDOW_SECONDS = 3600;

const treeSelect = {
  id: true,
  status: true,
  reviewStatus: true,
  reviewReason: true,
  startTime: true,
  endTime: true,
  lifecycleState: true,
  lifecycleReason: true,
  lifetimeSpendLimitMicros: true,
  targetCountries: true,
  pricingModel: true,
  spend: { select: { spentMicros: true } },
  adAccount: { select: { url: true, logoUrl: true } },
  organizationId: true,
  organization: { select: { domain: true } },
  adGroups: {
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    select: {
      id: true,
      status: true,
      maxBidMicros: true,
      creativeType: true,
      ads: {
        orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
        select: {
          id: true,
          status: true,
          creativeType: true,
          targetUrl: true,
          assetId: true,
          approvedCreative: true,
          creativeReviewStatus: true,
          creativeReviewReason: true,
        },
      },
    },
  },
} satisfies Prisma.CampaignSelect;

export type CampaignTree = Prisma.CampaignGetPayload<{ select: typeof treeSelect }>;

/** A campaign with what its diagnosis reads; 404 `not_found` (param `campaign_id`) like the campaign itself. `organizationId` null: any (operators). */
export async function loadCampaignTree(db: Db, organizationId: string | null, id: unknown): Promise<CampaignTree> {
  const campaignId = normalizeId(id);
  const tree = campaignId
    ? await db.campaign.findFirst({ where: { id: campaignId, ...(organizationId ? { organizationId } : {}) }, select: treeSelect })
    : null;
  if (!tree) throw notFound('campaign', 'campaign_id');
  return tree;
}

/** Campaigns' trees at once (the dashboard's list and the reviewer queue). */
export async function loadCampaignTrees(db: Db, campaignIds: string[]): Promise<CampaignTree[]> {
  if (campaignIds.length === 0) return [];
  return db.campaign.findMany({ where: { id: { in: campaignIds } }, select: treeSelect });
}

const BLOCK_ENTITY: Record<ServingBlock, EntityType> = {
  blocked: 'campaign',
  rejected: 'campaign',
  not_approved: 'campaign',
  archived: 'campaign',
  campaign_paused: 'campaign',
  ended: 'campaign',
  budget_exhausted: 'campaign',
  scheduled: 'campaign',
  ad_group_paused: 'ad_group',
  ad_paused: 'ad',
};

/** Most serving first: an entity shows the best of its children's statuses. */
const STATUS_RANK: DeliveryStatus[] = ['delivering', 'limited', 'scheduled', 'not_delivering', 'completed'];
const SEVERITY_RANK: Severity[] = ['blocking', 'limiting', 'info'];

/** The diagnosis of a loaded campaign; `traffic` per ad id (null: not read, e.g. for a queue of many). */
/** The pacing plan of a campaign, as stored (domain/serving/pacing-store.ts). */
export interface PacingPlan {
  participation: number;
  plannedSpentMicros: bigint;
  observedSpentMicros: bigint;
}

export function diagnose(tree: CampaignTree, traffic: Map<string, AdTraffic> | null, now: number, pacing: PacingPlan | null = null): CampaignDelivery {
  const issue = (code: IssueCode, type: EntityType, id: string, details?: DeliveryIssue['details']): DeliveryIssue => ({
    code,
    ...issueText(code, details ?? {}),
    entity: { type, id },
    ...(details ? { details } : {}),
  });
  const campaignFacts = factsOf(tree);
  const campaignIssues: DeliveryIssue[] = [];
  const seenBlocks = new Set<ServingBlock>();

  const groups = tree.adGroups.map((group): AdGroupDelivery => {
    const groupIssues: DeliveryIssue[] = [];
    const ads = group.ads.map((ad): AdDelivery => {
      const adIssues: DeliveryIssue[] = [];
      const blocks = servingBlocks({ ...campaignFacts, adGroupStatus: group.status, adStatus: ad.status }, now);
      for (const block of blocks) {
        const type = BLOCK_ENTITY[block];
        const target = type === 'campaign' ? campaignIssues : type === 'ad_group' ? groupIssues : adIssues;
        const key = type === 'campaign' ? block : null;
        if (key && seenBlocks.has(key)) continue;
        if (key) seenBlocks.add(key);
        if (type === 'ad_group' && groupIssues.some((i) => i.code === block)) continue;
        target.push(issue(block, type, type === 'campaign' ? tree.id : type === 'ad_group' ? group.id : ad.id, blockDetails(block, tree)));
      }
      adIssues.push(...creativeIssues(tree, ad, issue));
      const adTraffic = summarize(traffic?.get(ad.id));
      return { ad_id: ad.id, delivery_status: 'delivering', issues: adIssues, traffic: adTraffic };
    });
    if (group.ads.length === 0) groupIssues.push(issue('no_ads', 'ad_group', group.id));
    const groupTraffic = sum(ads.map((a) => a.traffic));
    const servableAds = ads.filter((a) => !a.issues.some((i) => i.severity === 'blocking'));
    if (traffic && servableAds.length > 0) {
      const closest = Math.max(0, ...group.ads.map((ad) => traffic.get(ad.id)?.closestRelevance ?? 0));
      groupIssues.push(...groupTrafficIssues(group, groupTraffic, competitorPrices(tree, group.ads, traffic), closest, issue));
    }
    return { ad_group_id: group.id, delivery_status: 'delivering', issues: groupIssues, traffic: groupTraffic, ads };
  });

  const campaignTraffic = sum(groups.map((g) => g.traffic));
  if (traffic && campaignIssues.length === 0) campaignIssues.push(...campaignTrafficIssues(tree, campaignTraffic, issue));
  if (!campaignIssues.some((i) => i.severity === 'blocking')) campaignIssues.push(...controlIssues(tree, campaignTraffic, pacing, issue));
  // Statuses bottom-up: an ad's from its own issues and its parents', a parent's the best of its children's.
  for (const group of groups) {
    for (const ad of group.ads) ad.delivery_status = statusOf([...campaignIssues, ...group.issues, ...ad.issues]);
    group.delivery_status = group.ads.length ? best(group.ads.map((a) => a.delivery_status)) : statusOf([...campaignIssues, ...group.issues]);
  }
  const all = [...campaignIssues, ...groups.flatMap((g) => [...g.issues, ...g.ads.flatMap((a) => a.issues)])];
  return {
    campaign_id: tree.id,
    delivery_status: groups.length ? best(groups.map((g) => g.delivery_status)) : statusOf(campaignIssues),
    issues: all.sort((a, b) => SEVERITY_RANK.indexOf(a.severity) - SEVERITY_RANK.indexOf(b.severity)),
    traffic: { window_seconds: TRAFFIC_WINDOW_SECONDS, ...campaignTraffic },
    ad_groups: groups,
    checked_at: Math.floor(now / 1000),
  };
}

function factsOf(tree: CampaignTree): Omit<ServableFacts, 'adGroupStatus' | 'adStatus'> {
  return {
    campaignStatus: tree.status,
    reviewStatus: tree.reviewStatus,
    startTime: tree.startTime.getTime(),
    endTime: tree.endTime?.getTime() ?? null,
    lifecycleState: tree.lifecycleState,
    lifecycleReason: tree.lifecycleReason,
    budgetExhausted: (tree.spend?.spentMicros ?? 0n) >= tree.lifetimeSpendLimitMicros,
  };
}

function blockDetails(block: ServingBlock, tree: CampaignTree): DeliveryIssue['details'] | undefined {
  const at = (d: Date | null) => (d ? new Date(d).toISOString() : '');
  switch (block) {
    case 'rejected':
      return { reason: tree.reviewReason ?? '' };
    case 'blocked':
      return { reason: tree.lifecycleReason ?? '' };
    case 'scheduled':
      return { start_time: Math.floor(tree.startTime.getTime() / 1000), starts_at: at(tree.startTime) };
    case 'ended':
      return tree.endTime ? { end_time: Math.floor(tree.endTime.getTime() / 1000), ended_at: at(tree.endTime) } : undefined;
    case 'budget_exhausted':
      return { spent_micros: Number(tree.spend?.spentMicros ?? 0n), lifetime_spend_limit_micros: Number(tree.lifetimeSpendLimitMicros) };
    default:
      return undefined;
  }
}

type Ad = CampaignTree['adGroups'][number]['ads'][number];
type MakeIssue = (code: IssueCode, type: EntityType, id: string, details?: DeliveryIssue['details']) => DeliveryIssue;

/** What the ad's creative lacks to serve, judged on what would serve (its approved version, else the one in review). */
function creativeIssues(tree: CampaignTree, ad: Ad, issue: MakeIssue): DeliveryIssue[] {
  const issues: DeliveryIssue[] = [];
  const approved = servableCreative(ad);
  // What would serve: the approved version, else the one waiting for review (only whether it has an image matters here).
  const facts = {
    creativeType: (approved?.type ?? ad.creativeType) as 'chat_card' | 'poll',
    clickUrl: landingUrlOf(approved ? approved.target_url : ad.targetUrl, tree.adAccount.url, tree.organization.domain),
    imageUrl: approved ? (approved.image ? assetUrl(approved.image) : null) : ad.assetId,
    logoUrl: tree.adAccount.logoUrl,
  };
  const every = { formats: ['sponsored_message', 'poll'], imageEnabled: true };
  const block = creativeBlock(facts, every);
  if (block === 'no_landing_url') issues.push(issue('no_landing_url', 'ad', ad.id));
  else if (block === 'no_image_or_logo') issues.push(issue('no_image_or_logo', 'ad', ad.id, { when: 'always' }));
  else if (creativeBlock(facts, { ...every, imageEnabled: false }) === 'no_image_or_logo') {
    issues.push({ ...issue('no_image_or_logo', 'ad', ad.id, { when: 'images_off' }), severity: 'limiting' });
  }
  if (tree.reviewStatus === 'approved') {
    if (ad.creativeReviewStatus === 'pending') issues.push(issue(approved ? 'creative_in_review' : 'creative_not_approved', 'ad', ad.id));
    if (ad.creativeReviewStatus === 'rejected')
      issues.push(issue(approved ? 'creative_edit_rejected' : 'creative_rejected', 'ad', ad.id, { reason: ad.creativeReviewReason ?? '' }));
  }
  return issues;
}

function summarize(t: AdTraffic | undefined): TrafficSummary {
  const c = t?.counts ?? emptyCounts();
  const skipped: Record<string, number> = {};
  for (const reason of INHOUSE_SKIPS) {
    if (c[reason] > 0) skipped[reason] = c[reason];
  }
  const skips = Object.values(skipped).reduce((a, b) => a + b, 0);
  return { evaluated: skips + c.eligible, eligible: c.eligible, won: c.won, outbid: c.outbid, skipped };
}

function sum(parts: TrafficSummary[]): TrafficSummary {
  const total: TrafficSummary = { evaluated: 0, eligible: 0, won: 0, outbid: 0, skipped: {} };
  for (const p of parts) {
    total.evaluated += p.evaluated;
    total.eligible += p.eligible;
    total.won += p.won;
    total.outbid += p.outbid;
    for (const [reason, n] of Object.entries(p.skipped)) total.skipped[reason] = (total.skipped[reason] ?? 0) + n;
  }
  return total;
}

/** The winning prices the ads lost to other advertisers (the campaign's own organization's wins are not competitors' prices). */
const competitorPrices = (tree: CampaignTree, ads: readonly Ad[], traffic: Map<string, AdTraffic>) =>
  ads.flatMap((ad) => traffic.get(ad.id)?.winPrices ?? []).filter((p) => p.advertiser !== `org:${tree.organizationId}`);

/**
 * The median winning price is shown only when it hides who paid it
 * (docs/api-behaviour.md, "Delivery diagnostics"): its prices come from at least
 * this many distinct other advertisers, and no one of them paid more than half of
 * them (else the median is, most likely, that advertiser's own max bid).
 */
export const MIN_PRICE_ADVERTISERS = 3;

/** Why the prices may not be shown, or null when they may. */
export function priceWithheld(prices: readonly WinPrice[]): 'too_few_advertisers' | 'one_advertiser_dominates' | null {
  const byAdvertiser = new Map<string, number>();
  for (const p of prices) byAdvertiser.set(p.advertiser, (byAdvertiser.get(p.advertiser) ?? 0) + 1);
  if (byAdvertiser.size < MIN_PRICE_ADVERTISERS) return 'too_few_advertisers';
  if (Math.max(...byAdvertiser.values()) * 2 > prices.length) return 'one_advertiser_dominates';
  return null;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
}

/** Targeting is the campaign's: no request from its countries. */
function campaignTrafficIssues(tree: CampaignTree, t: TrafficSummary, issue: MakeIssue): DeliveryIssue[] {
  const considered = t.evaluated - (t.skipped.budget_exhausted ?? 0);
  if (considered > 0 && (t.skipped.not_targeted ?? 0) === considered) {
    return [issue('no_targeted_traffic', 'campaign', tree.id, { requests: considered, countries: tree.targetCountries })];
  }
  return [];
}

/** What the delivery controls hold back: pacing ahead of plan, frequency caps reached. */
function controlIssues(tree: CampaignTree, t: TrafficSummary, pacing: PacingPlan | null, issue: MakeIssue): DeliveryIssue[] {
  const issues: DeliveryIssue[] = [];
  if (pacing && pacing.participation < 1) {
    issues.push(
      issue('paced', 'campaign', tree.id, {
        participation: Math.round(pacing.participation * 1000) / 1000,
        planned_spend_micros: Number(pacing.plannedSpentMicros),
        actual_spend_micros: Number(pacing.observedSpentMicros),
      }),
    );
  }
  const capped = t.skipped.frequency_capped ?? 0;
  if (capped > 0) issues.push(issue('frequency_capped', 'campaign', tree.id, { requests: capped }));
  return issues;
}

/**
 * Context hints and bids are the ad group's: nothing relevant (with the highest
 * score its ads reached, `closest`, against the default bar: a publisher may set
 * its own), or eligible but outbid.
 */
function groupTrafficIssues(
  group: CampaignTree['adGroups'][number],
  t: TrafficSummary,
  winPrices: WinPrice[],
  closest: number,
  issue: MakeIssue,
): DeliveryIssue[] {
  const fromTargeted = t.evaluated - (t.skipped.budget_exhausted ?? 0) - (t.skipped.not_targeted ?? 0);
  if (fromTargeted > 0 && (t.skipped.not_relevant ?? 0) === fromTargeted)
    return [issue('not_relevant', 'ad_group', group.id, { requests: fromTargeted, closest_relevance: closest, min_relevance: DEFAULT_MIN_RELEVANCE })];
  if (t.eligible > 0 && t.outbid > t.won) {
    const details: DeliveryIssue['details'] = { eligible: t.eligible, won: t.won, outbid: t.outbid, max_bid_micros: Number(group.maxBidMicros ?? 0) };
    if (winPrices.length) {
      const withheld = priceWithheld(winPrices);
      if (withheld) details.winning_price_withheld = withheld;
      else details.median_winning_price_micros = median(winPrices.map((p) => p.priceMicros));
    }
    return [issue('outbid', 'ad_group', group.id, details)];
  }
  return [];
}

function statusOf(issues: DeliveryIssue[]): DeliveryStatus {
  const codes = new Set(issues.map((i) => i.code));
  if (codes.has('ended') || codes.has('budget_exhausted')) return 'completed';
  if (issues.some((i) => i.severity === 'blocking')) return 'not_delivering';
  if (codes.has('scheduled')) return 'scheduled';
  return issues.some((i) => i.severity === 'limiting') ? 'limited' : 'delivering';
}

const best = (statuses: DeliveryStatus[]): DeliveryStatus => statuses.reduce((a, b) => (STATUS_RANK.indexOf(a) <= STATUS_RANK.indexOf(b) ? a : b));

export interface DiagnosticsDeps {
  db: Db;
  ch: ClickHouseClient;
  database: string;
}

/** A campaign's delivery, read now: its tree from PostgreSQL, its last hour of in-house traffic from ClickHouse. */
export async function campaignDelivery(deps: DiagnosticsDeps, organizationId: string | null, campaignId: unknown, now = Date.now()): Promise<CampaignDelivery> {
  const tree = await loadCampaignTree(deps.db, organizationId, campaignId);
  const since = new Date(now - TRAFFIC_WINDOW_SECONDS * 1000);
  const [traffic, pacing, invalid] = await Promise.all([
    campaignTraffic(deps.ch, deps.database, tree.id, since),
    freshPacingOf(deps.db, tree.id, now),
    campaignInvalidTraffic(deps.ch, deps.database, tree.id, since),
  ]);
  const delivery = diagnose(tree, traffic, now, pacing);
  return { ...delivery, traffic: { ...delivery.traffic, ...invalid } };
}
