/**
 * The insights metrics that live outside the delivery rollups: `poll_votes`
 * (PostgreSQL `poll_votes`, through pollVotesByAd) and `conversions` (collected
 * events attributed to our deliveries, domain/events/conversions.ts). Both are
 * own supply, counted by the UTC hour they happened in; each hourly count is
 * placed into the request's windows by the same midpoint rule as the delivery
 * rows (storedBucketRange), rolled up into the report bucket and keyed by the
 * entity at the report's level and the segment value, so they merge into the
 * report rows like any other metric. Country and device are those of the
 * delivery the vote or conversion belongs to. Computed only when a request
 * uses them (fields, filters or sort).
 */
import { clickhouseDialect } from '../../lib/clickhouse/dialect';
import { inList, sql } from '../../lib/clickhouse/sql';
import { ATTRIBUTED_DELIVERY_COLUMNS, attributedConversionsSql } from '../events/conversions';
import { pollVotesByAd } from '../polls/service';
import { DELIVERY_TABLES } from '../delivery/clickhouse-tables';
import { isUuid } from '../ids';
import { runAnalyticsQuery } from './analytics-query';
import type { InsightsQuery, Level, Metric } from './query';
import type { InsightsDeps } from './report';
import { scopeCondition, table, type ReportQueryRow, type ReportScope } from './sql';
import { DAY, HOUR, storedBucketRange } from './time-windows';

export const ENGAGEMENT_METRICS = ['poll_votes', 'conversions'] as const;
export type EngagementMetric = (typeof ENGAGEMENT_METRICS)[number];

/** A report query row with engagement counts beside the delivery sums. */
export type MergedRow = ReportQueryRow & Record<EngagementMetric, number>;

/** One hourly count of one ad's engagement, with the segment values of its delivery. */
interface HourlyCount {
  path: Record<Level, string>;
  hour: number;
  source: string;
  country: string;
  device: string;
  metric: EngagementMetric;
  count: number;
}

/** The hours (Unix seconds) each window counts, as [from, to) per window index. */
const windowHours = (query: InsightsQuery) => query.windows.map((w) => storedBucketRange(w, HOUR));

/** The report bucket of an hour, as the report SQL computes it (monthly: `YYYYMM`). */
function reportBucketOf(hour: number, granularity: InsightsQuery['granularity']): number {
  switch (granularity) {
    case 'hourly':
      return hour;
    case 'daily':
      return Math.floor(hour / DAY) * DAY;
    case 'monthly': {
      const date = new Date(hour * 1000);
      return date.getUTCFullYear() * 100 + date.getUTCMonth() + 1;
    }
    case 'none':
      return 0;
  }
}

/** Ads under the scope and id filters that have a poll, with their entity paths. */
async function pollAdsInScope(deps: InsightsDeps, scope: ReportScope, query: InsightsQuery): Promise<Map<string, Record<Level, string>>> {
  const ids = (level: 'campaign' | 'ad_group' | 'ad', own?: string) => {
    const filter = query.idFilters[level]?.filter(isUuid);
    const wanted = [...(own ? [own] : []), ...(filter ?? [])];
    if (own && filter) return { in: filter.includes(own) ? [own] : [] };
    return wanted.length > 0 || filter ? { in: wanted } : undefined;
  };
  const ads = await deps.db.ad.findMany({
    where: {
      id: ids('ad', scope.adId),
      poll: { isNot: null },
      adGroup: {
        id: ids('ad_group', scope.adGroupId),
        campaign: { organizationId: scope.organizationId, adAccountId: scope.adAccountId, id: ids('campaign', scope.campaignId) },
      },
    },
    select: { id: true, adGroupId: true, adGroup: { select: { campaignId: true } } },
  });
  return new Map(ads.map((ad) => [ad.id, { ad_account: scope.adAccountId, campaign: ad.adGroup.campaignId, ad_group: ad.adGroupId, ad: ad.id }]));
}

const AUCTIONS_PER_QUERY = 2000;

/** Votes per ad and hour; with the country or device segment, the delivery's country and device from its delivery rows. */
async function pollVoteCounts(deps: InsightsDeps, scope: ReportScope, query: InsightsQuery, from: number, to: number): Promise<HourlyCount[]> {
  const ads = await pollAdsInScope(deps, scope, query);
  const perDelivery = query.segment === 'country' || query.segment === 'device';
  const votes = await pollVotesByAd(deps.db, {
    adIds: [...ads.keys()],
    start: new Date(from * 1000),
    end: new Date(to * 1000),
    granularity: 'hourly',
    perDelivery,
  });
  const deliveries = new Map<string, { country: string; device: string }>();
  const auctions = [...new Set(votes.map((v) => v.auction_id ?? ''))].filter((id) => id !== '');
  // In slices, so a query stays well under ClickHouse's max_query_size (256 KiB).
  for (let i = 0; perDelivery && i < auctions.length; i += AUCTIONS_PER_QUERY) {
    const rows = await runAnalyticsQuery(
      deps.ch,
      `
      SELECT ad_id, auction_id, any(country), any(device)
      FROM ${table(deps.database, DELIVERY_TABLES.rows)}
      WHERE ${sql`organization_id = ${scope.organizationId}`} AND auction_id IN ${inList(auctions.slice(i, i + AUCTIONS_PER_QUERY))}
      GROUP BY ad_id, auction_id`,
      deps.timeoutSeconds,
      ['ad_id', 'auction_id', 'country', 'device'] as const,
    );
    for (const r of rows) deliveries.set(`${r.ad_id}:${r.auction_id}`, { country: r.country, device: r.device });
  }
  return votes.map((v) => {
    // A vote whose delivery left no delivery row has no country or device ('').
    const delivery = deliveries.get(`${v.ad_id}:${v.auction_id}`) ?? { country: '', device: '' };
    return { path: ads.get(v.ad_id)!, hour: v.bucket_start, source: 'own', ...delivery, metric: 'poll_votes', count: v.votes };
  });
}

/** Conversions attributed to deliveries under the scope, per delivery path, segment values and hour. */
async function conversionCounts(deps: InsightsDeps, scope: ReportScope, query: InsightsQuery, from: number, to: number): Promise<HourlyCount[]> {
  const columns = ATTRIBUTED_DELIVERY_COLUMNS.join(', ');
  const attributed = attributedConversionsSql({
    organizationId: scope.organizationId,
    start: new Date(from * 1000),
    end: new Date(to * 1000),
    database: deps.database,
    dialect: await clickhouseDialect(deps.ch),
  });
  const source = query.source === 'all' ? '' : sql` AND source = ${query.source}`;
  const rows = await runAnalyticsQuery(
    deps.ch,
    `
    SELECT ${columns}, intDiv(toUInt32(ts), ${HOUR}) * ${HOUR} AS hour, count() AS conversions
    FROM (${attributed})
    WHERE ${scopeCondition(scope, query)}${source}
    GROUP BY ${columns}, hour`,
    deps.timeoutSeconds,
    [...ATTRIBUTED_DELIVERY_COLUMNS, 'hour', 'conversions'] as const,
  );
  return rows.map((r) => ({
    path: { ad_account: r.ad_account_id, campaign: r.campaign_id, ad_group: r.ad_group_id, ad: r.ad_id },
    hour: Number(r.hour),
    source: r.source,
    country: r.country,
    device: r.device,
    metric: 'conversions',
    count: Number(r.conversions),
  }));
}

/**
 * The engagement counts a request uses, as rows keyed like the report query's
 * (window, report bucket, entity, segment value); none for external supply.
 */
export async function engagementRows(deps: InsightsDeps, scope: ReportScope, query: InsightsQuery, metrics: readonly Metric[]): Promise<MergedRow[]> {
  const used = ENGAGEMENT_METRICS.filter((m) => metrics.includes(m));
  if (used.length === 0 || query.source === 'external') return [];
  const hours = windowHours(query);
  const from = Math.min(...hours.map((h) => h.from));
  const to = Math.max(...hours.map((h) => h.to));
  const counts = (
    await Promise.all(
      used.map((metric) => (metric === 'poll_votes' ? pollVoteCounts(deps, scope, query, from, to) : conversionCounts(deps, scope, query, from, to))),
    )
  ).flat();

  const rows = new Map<string, MergedRow>();
  for (const c of counts) {
    const windowIndex = hours.findIndex((h) => c.hour >= h.from && c.hour < h.to);
    if (windowIndex < 0) continue;
    const segmentValue = query.segment ? c[query.segment] : '';
    const bucket = reportBucketOf(c.hour, query.granularity);
    const key = rowKey(windowIndex, bucket, c.path[query.level], segmentValue);
    let row = rows.get(key);
    if (!row) {
      row = {
        window_index: String(windowIndex),
        bucket: String(bucket),
        entity_id: c.path[query.level],
        segment_value: segmentValue,
        impressions: '0',
        clicks: '0',
        spend_micros: '0',
        poll_votes: 0,
        conversions: 0,
      };
      rows.set(key, row);
    }
    row[c.metric] += c.count;
  }
  return [...rows.values()];
}

const rowKey = (windowIndex: number | string, bucket: number | string, entityId: string, segmentValue: string) =>
  `${windowIndex}\t${bucket}\t${entityId}\t${segmentValue}`;

/** (window, bucket) numerically, then entity and segment value: the report query's ORDER BY. */
function compareKeys(a: ReportQueryRow, b: ReportQueryRow): number {
  return (
    Number(a.window_index) - Number(b.window_index) ||
    Number(a.bucket) - Number(b.bucket) ||
    (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0) ||
    (a.segment_value < b.segment_value ? -1 : a.segment_value > b.segment_value ? 1 : 0)
  );
}

/**
 * The report rows with the engagement rows added in (same key: counts added;
 * a new key: a row of its own), in the report query's order, at most `cap`.
 * Each input holds its first `cap` + 1 rows in that order, so the first `cap` of the merge are exact.
 */
export function mergeEngagement(report: ReportQueryRow[], engagement: MergedRow[], cap: number): MergedRow[] {
  const merged = report.map((r): MergedRow => ({ ...r, poll_votes: 0, conversions: 0 }));
  if (engagement.length === 0) return merged.slice(0, cap);
  const byKey = new Map(merged.map((r) => [rowKey(r.window_index, r.bucket, r.entity_id, r.segment_value), r]));
  for (const e of engagement) {
    const row = byKey.get(rowKey(e.window_index, e.bucket, e.entity_id, e.segment_value));
    if (row) {
      row.poll_votes += e.poll_votes;
      row.conversions += e.conversions;
    } else {
      merged.push(e);
    }
  }
  return merged.sort(compareKeys).slice(0, cap);
}
