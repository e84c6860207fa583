import type { Db, Prisma } from '../../lib/db';
import { assetUrl } from '../../domain/assets/ad-images';
import { servableCreative } from '../../domain/creatives/review';
import { hintTerms, type HintTerms } from './relevance';
import { landingUrlOf, type ServableFacts } from '../../domain/serving/eligibility';
import { newAdTally, type AdTally } from './tally';
import { unpaced, type CampaignPacing } from './pacing-gate';

/**
 * The in-memory index of our advertisers' ads. Loaded from PostgreSQL (in
 * pages) when the service starts and again (debounced) whenever the
 * `auction_index` notification says a campaign, ad group, ad or ad account
 * changed (auction/catalog.ts); never per request. Status and review are kept
 * on each entry so that the serving rules decide, at request time, with the clock.
 */
export interface IndexedAd extends ServableFacts {
  adId: string;
  adGroupId: string;
  campaignId: string;
  organizationId: string;
  adAccountId: string;
  creativeType: 'chat_card' | 'poll';
  title: string;
  body: string | null;
  cta: string | null;
  options: string[];
  imageUrl: string | null;
  logoUrl: string | null;
  advertiser: string;
  domain: string | null;
  /** Where a click goes: the ad's target URL, else the ad account's website, else the organization's domain. */
  clickUrl: string | null;
  /** Uppercase alpha-2; null = untargeted. */
  countries: ReadonlySet<string> | null;
  pricingModel: string;
  maxBidMicros: number | null;
  hints: HintTerms;
  /** What the bidder did with this ad, counted for the delivery diagnostics (kept across reloads: InhouseTallies). */
  tally: AdTally;
  /** Its campaign's pacing plan (shared by the campaign's ads, updated in place: PacingGate). */
  pacing: CampaignPacing;
}

/** Ads per query of a reload (see loadIndexedAds). */
export const INDEX_PAGE_SIZE = 250;

/** Only campaigns that could serve now or later; the exact rules are domain/serving/eligibility.ts. */
const servableWhere = (): Prisma.AdWhereInput => ({
  adGroup: { campaign: { status: 'active', reviewStatus: 'approved', lifecycleState: null, OR: [{ endTime: null }, { endTime: { gt: new Date() } }] } },
});

const indexSelect = {
  // What serves is the ad's last approved creative, never its live (possibly unreviewed) columns.
  id: true,
  status: true,
  approvedCreative: true,
  adGroup: {
    select: {
      id: true,
      status: true,
      contextHints: true,
      maxBidMicros: true,
      campaign: {
        select: {
          id: true,
          organizationId: true,
          adAccountId: true,
          status: true,
          reviewStatus: true,
          startTime: true,
          endTime: true,
          lifecycleState: true,
          pricingModel: true,
          targetCountries: true,
          lifetimeSpendLimitMicros: true,
          spend: { select: { spentMicros: true } },
          adAccount: { select: { name: true, url: true, logoUrl: true } },
          organization: { select: { name: true, domain: true } },
        },
      },
    },
  },
} satisfies Prisma.AdSelect;

/**
 * The whole index, read in pages of `pageSize` ads with a turn of the event
 * loop between pages: the auction reloads it while serving, and turning one
 * query's rows into objects is synchronous work (Prisma's result processing
 * most of it) that grows with the index; paged, requests wait at most one
 * page's worth (~10 ms for 250 ads), however large the index. The ids come
 * first, in one light query; each page is then a lookup by primary key (an
 * entry carries its campaign's state, so the serving rules still decide if that
 * changed in between; the change's notification reloads again).
 */
export async function loadIndexedAds(db: Db, pageSize = INDEX_PAGE_SIZE, scope?: IndexScope): Promise<IndexedAd[]> {
  const where = scope ? { AND: [servableWhere(), scopeWhere(scope)] } : servableWhere();
  const ids = (await db.ad.findMany({ where, select: { id: true } })).map((ad) => ad.id);
  const ads: IndexedAd[] = [];
  for (let start = 0; start < ids.length; start += pageSize) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const page = await db.ad.findMany({ where: { id: { in: ids.slice(start, start + pageSize) } }, select: indexSelect });
    for (const row of page) {
      const entry = indexEntry(row);
      if (entry) ads.push(entry);
    }
  }
  return ads;
}

/** Part of the index: the ads of these campaigns and of these ad accounts' campaigns (a change's notification names them). */
export interface IndexScope {
  campaignIds: ReadonlySet<string>;
  adAccountIds: ReadonlySet<string>;
}

const scopeWhere = (scope: IndexScope): Prisma.AdWhereInput => ({
  adGroup: { campaign: { OR: [{ id: { in: [...scope.campaignIds] } }, { adAccountId: { in: [...scope.adAccountIds] } }] } },
});

/** Whether an index entry belongs to the scope (what a reload of the scope replaces). */
export const inScope = (ad: Pick<IndexedAd, 'campaignId' | 'adAccountId'>, scope: IndexScope): boolean =>
  scope.campaignIds.has(ad.campaignId) || scope.adAccountIds.has(ad.adAccountId);

type IndexRow = Prisma.AdGetPayload<{ select: typeof indexSelect }>;

/** One ad's index entry, or null when it must not serve (nothing approved, budget spent). */
function indexEntry(ad: IndexRow): IndexedAd | null {
  const creative = servableCreative(ad);
  if (!creative) return null; // a new ad, or one never approved: nothing a reviewer saw
  const group = ad.adGroup;
  const campaign = group.campaign;
  // Budget spent: the charge that exhausted it notified `auction_index` (domain/delivery/ledger.ts).
  if ((campaign.spend?.spentMicros ?? 0n) >= campaign.lifetimeSpendLimitMicros) return null;
  const website = campaign.adAccount.url ?? campaign.organization.domain;
  return {
    adId: ad.id,
    adGroupId: group.id,
    campaignId: campaign.id,
    organizationId: campaign.organizationId,
    adAccountId: campaign.adAccountId,
    creativeType: creative.type,
    title: creative.title,
    body: creative.body,
    cta: creative.cta,
    options: creative.options,
    imageUrl: creative.image ? assetUrl(creative.image) : null,
    logoUrl: campaign.adAccount.logoUrl,
    advertiser: campaign.adAccount.name || campaign.organization.name,
    domain: website
      ? website
          .replace(/^https?:\/\//i, '')
          .replace(/\/.*$/, '')
          .toLowerCase()
      : null,
    clickUrl: landingUrlOf(creative.target_url, campaign.adAccount.url, campaign.organization.domain),
    countries: campaign.targetCountries.length ? new Set(campaign.targetCountries.map((c) => c.toUpperCase())) : null,
    pricingModel: campaign.pricingModel,
    maxBidMicros: group.maxBidMicros === null ? null : Number(group.maxBidMicros),
    hints: hintTerms(group.contextHints),
    campaignStatus: campaign.status,
    reviewStatus: campaign.reviewStatus,
    startTime: campaign.startTime.getTime(),
    endTime: campaign.endTime ? campaign.endTime.getTime() : null,
    adGroupStatus: group.status,
    adStatus: ad.status,
    lifecycleState: campaign.lifecycleState,
    tally: newAdTally(),
    pacing: unpaced(),
  };
}
