import { plainPoolOf, utcTimestamp, type Db, type Prisma } from '../../lib/db';
import { isUuid } from '../../domain/ids';
import { assetUrl } from '../../domain/assets/ad-images';
import { servableCreative } from '../../domain/creatives/review';
import { newProfileCache, profileOf, type ProfileCache } from './relevance';
import { adCopy } from '../../domain/relevance/ranking';
import type { RelevanceProfile } from '../../domain/relevance/profile';
import { INDEXED_BLOCKS, landingUrlOf, type ServableFacts } from '../../domain/serving/eligibility';
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
  /** What its ad group is about (domain/relevance/profile.ts), one object shared by the group's ads. */
  relevance: RelevanceProfile;
  /** What the bidder did with this ad, counted for the delivery diagnostics (kept across reloads: InhouseTallies). */
  tally: AdTally;
  /** Its campaign's pacing plan (shared by the campaign's ads, updated in place: PacingGate). */
  pacing: CampaignPacing;
}

/** Ads per query of a reload (see loadIndexedAds). */
export const INDEX_PAGE_SIZE = 250;

/**
 * The index's read: the ads whose `serving_block` (domain/serving/eligibility.sql) is null
 * or one of INDEXED_BLOCKS, with what an entry carries of
 * their ad group, campaign, ad account and organization, one keyset page at a
 * time. Plain SQL on the plain pool (lib/db.ts): Prisma's query compiler
 * runs on the auction's main thread, in blocks that would hold up the requests
 * arriving meanwhile. What serves
 * is the ad's last approved creative, never its live (possibly unreviewed)
 * columns. The columns are UTC `timestamp`s: read as instants, the clock passed in as UTC.
 */
const INDEX_PAGE_SQL = `
  SELECT a.id, a.status, a.approved_creative,
         g.id AS ad_group_id, g.status AS ad_group_status, g.context_hints, g.max_bid_micros::text AS max_bid_micros,
         c.id AS campaign_id, c.organization_id, c.ad_account_id, c.status AS campaign_status, c.review_status,
         c.start_time AT TIME ZONE 'UTC' AS start_time, c.end_time AT TIME ZONE 'UTC' AS end_time,
         c.lifecycle_state, c.pricing_model, c.target_countries,
         aa.name AS account_name, aa.url AS account_url, aa.logo_url, o.name AS organization_name, o.domain AS organization_domain
    FROM ads a
    JOIN ad_groups g ON g.id = a.ad_group_id
    JOIN campaigns c ON c.id = g.campaign_id
    JOIN ad_accounts aa ON aa.id = c.ad_account_id
    JOIN organizations o ON o.id = c.organization_id
    LEFT JOIN campaign_spend s ON s.campaign_id = c.id
   -- Budget spent: the charge that exhausted it notified auction_index (domain/delivery/charge.sql).
   WHERE coalesce(serving_block(c.status, c.review_status, c.lifecycle_state, c.lifecycle_reason, c.start_time, c.end_time,
                                coalesce(s.spent_micros, 0) >= c.lifetime_spend_limit_micros, g.status, a.status, $1::timestamp), '')
         IN ('', ${INDEXED_BLOCKS.map((block) => `'${block}'`).join(', ')})
     AND ($2::uuid[] IS NULL OR c.id = ANY($2::uuid[]) OR c.ad_account_id = ANY($3::uuid[]))
     AND ($4::uuid IS NULL OR a.id > $4::uuid)
   ORDER BY a.id
   LIMIT $5`;

interface IndexRow {
  id: string;
  status: string;
  approved_creative: Prisma.JsonValue | null;
  ad_group_id: string;
  ad_group_status: string;
  context_hints: string[];
  max_bid_micros: string | null;
  campaign_id: string;
  organization_id: string;
  ad_account_id: string;
  campaign_status: string;
  review_status: string;
  start_time: Date;
  end_time: Date | null;
  lifecycle_state: string | null;
  pricing_model: string;
  target_countries: string[];
  account_name: string;
  account_url: string | null;
  logo_url: string | null;
  organization_name: string;
  organization_domain: string | null;
}

/**
 * The whole index (or a scope's part of it), read in pages of `pageSize` ads
 * with a turn of the event loop between pages: the auction reloads it while
 * serving, so requests wait at most one page's worth of row handling, however
 * large the index. An entry carries its campaign's state, so the serving rules
 * still decide if that changed in between pages; the change's notification
 * reloads again.
 */
export async function loadIndexedAds(db: Db, pageSize = INDEX_PAGE_SIZE, scope?: IndexScope): Promise<IndexedAd[]> {
  const pool = plainPoolOf(db);
  const now = utcTimestamp(Date.now());
  // Notifications name ids our triggers wrote; anything else could name no row.
  const campaignIds = scope ? [...scope.campaignIds].filter(isUuid) : null;
  const adAccountIds = scope ? [...scope.adAccountIds].filter(isUuid) : null;
  const ads: IndexedAd[] = [];
  const profiles = newProfileCache();
  let after: string | null = null;
  for (;;) {
    const { rows }: { rows: IndexRow[] } = await pool.query<IndexRow>(INDEX_PAGE_SQL, [now, campaignIds, adAccountIds, after, pageSize]);
    for (const row of rows) {
      const entry = indexEntry(row, profiles);
      if (entry) ads.push(entry);
    }
    if (rows.length < pageSize) return ads;
    after = rows[rows.length - 1].id;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Part of the index: the ads of these campaigns and of these ad accounts' campaigns (a change's notification names them). */
export interface IndexScope {
  campaignIds: ReadonlySet<string>;
  adAccountIds: ReadonlySet<string>;
}

/** Whether an index entry belongs to the scope (what a reload of the scope replaces). */
export const inScope = (ad: Pick<IndexedAd, 'campaignId' | 'adAccountId'>, scope: IndexScope): boolean =>
  scope.campaignIds.has(ad.campaignId) || scope.adAccountIds.has(ad.adAccountId);

/** One ad's index entry, or null when it must not serve (nothing approved). */
function indexEntry(row: IndexRow, profiles: ProfileCache): IndexedAd | null {
  const creative = servableCreative({ approvedCreative: row.approved_creative });
  if (!creative) return null; // a new ad, or one never approved: nothing a reviewer saw
  const website = row.account_url ?? row.organization_domain;
  return {
    adId: row.id,
    adGroupId: row.ad_group_id,
    campaignId: row.campaign_id,
    organizationId: row.organization_id,
    adAccountId: row.ad_account_id,
    creativeType: creative.type,
    title: creative.title,
    body: creative.body,
    cta: creative.cta,
    options: creative.options,
    imageUrl: creative.image ? assetUrl(creative.image) : null,
    logoUrl: row.logo_url,
    advertiser: row.account_name || row.organization_name,
    domain: website
      ? website
          .replace(/^https?:\/\//i, '')
          .replace(/\/.*$/, '')
          .toLowerCase()
      : null,
    clickUrl: landingUrlOf(creative.target_url, row.account_url, row.organization_domain),
    countries: row.target_countries.length ? new Set(row.target_countries.map((c) => c.toUpperCase())) : null,
    pricingModel: row.pricing_model,
    maxBidMicros: row.max_bid_micros === null ? null : Number(row.max_bid_micros),
    // The group's first ad's copy says which sense its hints mean (pages are in ad id order).
    relevance: profileOf(row.ad_group_id, { hints: row.context_hints, copy: adCopy(creative) }, profiles),
    campaignStatus: row.campaign_status,
    reviewStatus: row.review_status,
    startTime: row.start_time.getTime(),
    endTime: row.end_time ? row.end_time.getTime() : null,
    adGroupStatus: row.ad_group_status,
    adStatus: row.status,
    lifecycleState: row.lifecycle_state,
    tally: newAdTally(),
    pacing: unpaced(),
  };
}
