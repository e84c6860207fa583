/**
 * The SQL of an insights report, assembled by small named builders. Every
 * value goes through lib/clickhouse/sql.ts (`sql`, `literal`, `inList`,
 * `identifier`); nothing here interpolates a value by hand.
 *
 * Shape: one inner SELECT per stored table the request needs (own supply from
 * the hourly rollup, external supply from the daily table, or the segments
 * rollup for country/device), each tagging its rows with the window they
 * belong to and their bucket start `t`; UNION ALL; an outer GROUP BY (window,
 * report bucket, entity, segment). Reports read rollups only.
 */
import { identifier, inList, literal, sql } from '../../lib/clickhouse/sql';
import { DELIVERY_TABLES } from '../delivery/clickhouse-tables';
import type { InsightsQuery, Level } from './query';
import { DAY, HOUR, storedBucketRange, type TimeWindow } from './time-windows';

/** Where a report may look: the organization and the path down to the endpoint's entity. */
export interface ReportScope {
  organizationId: string;
  adAccountId: string;
  campaignId?: string;
  adGroupId?: string;
  adId?: string;
}

/** Largest Unix second a ClickHouse 18.16 DateTime holds (UInt32), less a day of margin. */
const MAX_DATETIME = 2 ** 32 - 1 - DAY;
const clamp = (t: number) => Math.min(Math.max(t, 0), MAX_DATETIME);

const entityColumn = (level: Level) => identifier(`${level}_id`);
const table = (database: string, name: string) => `${identifier(database)}.${identifier(name)}`;

/** `organization_id = ... AND ad_account_id = ... [AND campaign_id = ...]`: the endpoint scope and the id filters. */
function scopeCondition(scope: ReportScope, query: InsightsQuery): string {
  const conditions = [sql`organization_id = ${scope.organizationId}`, sql`ad_account_id = ${scope.adAccountId}`];
  if (scope.campaignId) conditions.push(sql`campaign_id = ${scope.campaignId}`);
  if (scope.adGroupId) conditions.push(sql`ad_group_id = ${scope.adGroupId}`);
  if (scope.adId) conditions.push(sql`ad_id = ${scope.adId}`);
  for (const [level, ids] of Object.entries(query.idFilters)) {
    // An empty intersection of id filters matches nothing.
    conditions.push(ids.length > 0 ? `${entityColumn(level as Level)} IN ${inList(ids)}` : '0');
  }
  return conditions.join(' AND ');
}

/** Stored buckets of `size` seconds counted by each window (midpoint rule, time-windows.ts), as [from, to) bounds. */
function bucketRanges(windows: TimeWindow[], size: number) {
  return windows.map((w) => {
    const { from, to } = storedBucketRange(w, size);
    return { from: clamp(from), to: clamp(to) };
  });
}

/**
 * `multiIf(...) AS window` and the WHERE condition over a time column, for
 * buckets of `size` seconds. `asTime` turns a bucket start into the column's
 * type (DateTime for hours, Date for days), so the primary key prunes.
 */
function windowClauses(column: string, windows: TimeWindow[], size: number, asTime: (t: number) => string) {
  const ranges = bucketRanges(windows, size);
  const conditions = ranges.map(({ from, to }) => `(${column} >= ${asTime(from)} AND ${column} < ${asTime(to)})`);
  const cases = conditions.flatMap((condition, i) => [condition, String(i)]);
  return {
    window: `multiIf(${[...cases, '255'].join(', ')}) AS window_index`,
    where: `(${conditions.join(' OR ')})`,
  };
}

const asDateTime = (t: number) => literal(new Date(t * 1000));
const asDate = (t: number) => sql`toDate(${new Date(t * 1000).toISOString().slice(0, 10)})`;

const METRIC_SUMS = 'impressions, clicks, spend_micros';

/** Own supply (and any external supply reported per event) from the hourly rollup. */
function hourlyRows(database: string, scope: ReportScope, query: InsightsQuery): string {
  const { window, where } = windowClauses('hour', query.windows, HOUR, asDateTime);
  const source = query.source === 'all' ? '' : sql` AND source = ${query.source}`;
  return `SELECT ${entityColumn(query.level)} AS entity_id, source AS segment_value, ${window}, toUInt32(hour) AS t, ${METRIC_SUMS}
    FROM ${table(database, DELIVERY_TABLES.hourly)}
    WHERE ${scopeCondition(scope, query)}${source} AND ${where}`;
}

/** External supply from the partners' daily rows. */
function externalDailyRows(database: string, scope: ReportScope, query: InsightsQuery): string {
  const { window, where } = windowClauses('day', query.windows, DAY, asDate);
  return `SELECT ${entityColumn(query.level)} AS entity_id, 'external' AS segment_value, ${window}, toUInt32(toUInt32(day) * 86400) AS t, ${METRIC_SUMS}
    FROM ${table(database, DELIVERY_TABLES.externalDaily)}
    WHERE ${scopeCondition(scope, query)} AND ${where}`;
}

/** Own supply by country or device, from the segments rollup. */
function segmentRows(database: string, scope: ReportScope, query: InsightsQuery, segment: 'country' | 'device'): string {
  const { window, where } = windowClauses('hour', query.windows, HOUR, asDateTime);
  return `SELECT ${entityColumn(query.level)} AS entity_id, ${identifier(segment)} AS segment_value, ${window}, toUInt32(hour) AS t, ${METRIC_SUMS}
    FROM ${table(database, DELIVERY_TABLES.segmentsHourly)}
    WHERE ${scopeCondition(scope, query)} AND ${where}`;
}

/** The report bucket of a stored bucket start `t` (monthly: `YYYYMM`, decoded by the caller). */
function reportBucketExpression(granularity: InsightsQuery['granularity']): string {
  switch (granularity) {
    case 'hourly': return 't';
    case 'daily': return `intDiv(t, ${DAY}) * ${DAY}`;
    case 'monthly': return `toYYYYMM(toDateTime(t), 'UTC')`;
    case 'none': return '0';
  }
}

/** The inner SELECTs a request needs. */
function sources(database: string, scope: ReportScope, query: InsightsQuery): string[] {
  if (query.segment === 'country' || query.segment === 'device') return [segmentRows(database, scope, query, query.segment)];
  const inner: string[] = [];
  inner.push(hourlyRows(database, scope, query));
  if (query.source !== 'own') inner.push(externalDailyRows(database, scope, query));
  return inner;
}

/** One row of the report query's result. */
export interface ReportQueryRow {
  window_index: number;
  bucket: number;
  entity_id: string;
  segment_value: string;
  impressions: string;
  clicks: string;
  spend_micros: string;
}

/**
 * The report query: sums per (window, report bucket, entity[, segment]),
 * in a fixed order and at most `rowCap` + 1 rows (the caller keeps `rowCap`).
 */
export function reportQuery(database: string, scope: ReportScope, query: InsightsQuery, rowCap: number): string {
  const segmented = query.segment !== null;
  const groupBy = ['window_index', 'bucket', 'entity_id', ...(segmented ? ['segment_value'] : [])].join(', ');
  return `SELECT window_index, ${reportBucketExpression(query.granularity)} AS bucket, entity_id,
      ${segmented ? 'segment_value' : "'' AS segment_value"},
      toString(sum(impressions)) AS impressions, toString(sum(clicks)) AS clicks, toString(sum(spend_micros)) AS spend_micros
    FROM (${sources(database, scope, query).join('\n    UNION ALL\n    ')})
    GROUP BY ${groupBy}
    ORDER BY ${groupBy}
    LIMIT ${literal(rowCap + 1)}`;
}
