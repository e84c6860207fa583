import type { ClickHouseClient } from '@clickhouse/client';
import type { AddedColumn } from '../../lib/clickhouse/schema';
import { identifier, sql } from '../../lib/clickhouse/sql';
import { INHOUSE_OUTCOMES, type InhouseOutcome } from './eligibility';

/**
 * `inhouse_stats`: what the in-house bidder did with each of our ads, per
 * auction process per flush (auction/inhouse/tally.ts writes it): how many
 * requests passed it over and why, how many found it eligible, won or outbid
 * (with sampled winning prices). The delivery diagnostics read its last hour.
 * ClickHouse 18.16 syntax; monthly partitions dropped by the retention job.
 */
export const INHOUSE_STATS_TABLE = 'inhouse_stats';

export interface InhouseStatsRow {
  event_time: string;
  campaign_id: string;
  ad_group_id: string;
  ad_id: string;
  outcome: InhouseOutcome;
  requests: number;
  win_prices: number[];
  /** Who won each of `win_prices` (same index): winningAdvertiser. */
  win_advertisers: string[];
  /** not_relevant rows: the highest relevance the ad scored below the bar in the window (0 otherwise). */
  closest_relevance: number;
}

export function servingTables(database: string): string[] {
  return [
    `CREATE TABLE IF NOT EXISTS ${identifier(database)}.${INHOUSE_STATS_TABLE} (
       event_time DateTime,
       campaign_id String,
       ad_group_id String,
       ad_id String,
       outcome String,
       requests UInt64,
       win_prices Array(Int64),
       win_advertisers Array(String),
       closest_relevance Float32
     ) ENGINE = MergeTree()
     PARTITION BY toYYYYMM(event_time)
     ORDER BY (campaign_id, event_time)`,
  ];
}

/** Columns `inhouse_stats` gained after it was first created (scripts/clickhouse-migrate.ts adds them). */
export const SERVING_ADDED_COLUMNS: AddedColumn[] = [
  { table: INHOUSE_STATS_TABLE, column: 'win_advertisers', type: 'Array(String)' },
  { table: INHOUSE_STATS_TABLE, column: 'closest_relevance', type: 'Float32' },
];

/**
 * Who won an auction, as the diagnostics count distinct advertisers: our
 * advertiser's organization, else the DSP bid's advertiser domains, else the DSP
 * itself (one advertiser for all of its bids that name none).
 */
export function winningAdvertiser(winner: { bidderId: string; adomain?: string[]; inhouse?: { organizationId: string } }): string {
  if (winner.inhouse) return `org:${winner.inhouse.organizationId}`;
  const domains = (winner.adomain ?? []).map((d) => d.toLowerCase()).sort();
  return domains.length ? `adomain:${domains.join(',')}` : `dsp:${winner.bidderId}`;
}

/** One winning price an ad lost to, and who won with it. */
export interface WinPrice {
  priceMicros: number;
  advertiser: string;
}

/** One ad's counts over a window, by outcome, and the winning prices it lost to. */
export interface AdTraffic {
  counts: Record<InhouseOutcome, number>;
  winPrices: WinPrice[];
  /** The highest relevance the ad scored while below the bar (its not_relevant requests), 0 when none. */
  closestRelevance: number;
}

export const emptyCounts = (): Record<InhouseOutcome, number> => Object.fromEntries(INHOUSE_OUTCOMES.map((o) => [o, 0])) as Record<InhouseOutcome, number>;

/** At most this many sampled winning prices are read per campaign (the median needs no more). */
const MAX_PRICES = 20_000;

/** A campaign's in-house traffic since `since`, per ad. */
export async function campaignTraffic(ch: ClickHouseClient, database: string, campaignId: string, since: Date): Promise<Map<string, AdTraffic>> {
  const table = `${identifier(database)}.${INHOUSE_STATS_TABLE}`;
  const where = sql`campaign_id = ${campaignId} AND event_time >= ${since}`;
  const [counts, prices] = await Promise.all([
    ch
      .query({
        query: `SELECT ad_id, outcome, sum(requests) AS n, max(closest_relevance) AS closest FROM ${table} WHERE ${where} GROUP BY ad_id, outcome`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ ad_id: string; outcome: string; n: number | string; closest: number }>()),
    ch
      .query({
        // Rows written before prices carried their advertiser have none: their prices are not read.
        query: `SELECT ad_id, price, advertiser
                FROM (SELECT ad_id, win_prices, win_advertisers FROM ${table}
                      WHERE ${where} AND outcome = 'outbid' AND length(win_advertisers) = length(win_prices))
                ARRAY JOIN win_prices AS price, win_advertisers AS advertiser LIMIT ${MAX_PRICES}`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ ad_id: string; price: number | string; advertiser: string }>()),
  ]);
  const byAd = new Map<string, AdTraffic>();
  const of = (adId: string) => {
    let t = byAd.get(adId);
    if (!t) byAd.set(adId, (t = { counts: emptyCounts(), winPrices: [], closestRelevance: 0 }));
    return t;
  };
  for (const row of counts) {
    if (!(INHOUSE_OUTCOMES as readonly string[]).includes(row.outcome)) continue;
    const t = of(row.ad_id);
    t.counts[row.outcome as InhouseOutcome] += Number(row.n);
    // Float32 in ClickHouse: back to the three places the tally wrote.
    if (row.outcome === 'not_relevant') t.closestRelevance = Math.max(t.closestRelevance, Math.round(Number(row.closest) * 1000) / 1000);
  }
  for (const row of prices) of(row.ad_id).winPrices.push({ priceMicros: Number(row.price), advertiser: row.advertiser });
  return byAd;
}
