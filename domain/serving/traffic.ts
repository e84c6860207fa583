import type { ClickHouseClient } from '@clickhouse/client';
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
       win_prices Array(Int64)
     ) ENGINE = MergeTree()
     PARTITION BY toYYYYMM(event_time)
     ORDER BY (campaign_id, event_time)`,
  ];
}

/** One ad's counts over a window, by outcome, and the winning prices it lost to. */
export interface AdTraffic {
  counts: Record<InhouseOutcome, number>;
  winPrices: number[];
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
      .query({ query: `SELECT ad_id, outcome, sum(requests) AS n FROM ${table} WHERE ${where} GROUP BY ad_id, outcome`, format: 'JSONEachRow' })
      .then((r) => r.json<{ ad_id: string; outcome: string; n: number | string }>()),
    ch
      .query({
        query: `SELECT ad_id, price FROM ${table} ARRAY JOIN win_prices AS price WHERE ${where} AND outcome = 'outbid' LIMIT ${MAX_PRICES}`,
        format: 'JSONEachRow',
      })
      .then((r) => r.json<{ ad_id: string; price: number | string }>()),
  ]);
  const byAd = new Map<string, AdTraffic>();
  const of = (adId: string) => {
    let t = byAd.get(adId);
    if (!t) byAd.set(adId, (t = { counts: emptyCounts(), winPrices: [] }));
    return t;
  };
  for (const row of counts) {
    if ((INHOUSE_OUTCOMES as readonly string[]).includes(row.outcome)) of(row.ad_id).counts[row.outcome as InhouseOutcome] += Number(row.n);
  }
  for (const row of prices) of(row.ad_id).winPrices.push(Number(row.price));
  return byAd;
}
