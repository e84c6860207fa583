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
export const table = (database: string, name: string) => `${identifier(database)}.${identifier(name)}`;

/** `organization_id = ... AND ad_account_id = ... [AND campaign_id = ...]`: the endpoint scope and the id filters. */
export function scopeCondition(scope: ReportScope, query: InsightsQuery): string {
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

/** A stretch of stored buckets `[from, to)` (Unix seconds) counted by window number `window`. */
interface Stretch {
  window: number;
  from: number;
  to: number;
}

/**
 * Where own supply comes from: the hours each window counts (midpoint rule,
 * time-windows.ts), with the whole UTC days among them read from the daily
 * rollup (24 times fewer rows) unless the report is hourly. The edges of a
 * window in another time zone stay hourly, so the result is the same either way.
 */
function ownSupplyPlan(windows: TimeWindow[], hourly: boolean): { hours: Stretch[]; days: Stretch[] } {
  const hours: Stretch[] = [];
  const days: Stretch[] = [];
  windows.forEach((w, window) => {
    const { from, to } = storedBucketRange(w, HOUR);
    const [hFrom, hTo] = [clamp(from), clamp(to)];
    const dFrom = Math.ceil(hFrom / DAY) * DAY;
    const dTo = Math.floor(hTo / DAY) * DAY;
    if (hourly || dFrom >= dTo) {
      hours.push({ window, from: hFrom, to: hTo });
      return;
    }
    days.push({ window, from: dFrom, to: dTo });
    if (hFrom < dFrom) hours.push({ window, from: hFrom, to: dFrom });
    if (dTo < hTo) hours.push({ window, from: dTo, to: hTo });
  });
  return { hours, days };
}

/** The days each window counts of day-grained data (external supply): the midpoint rule again. */
function externalPlan(windows: TimeWindow[]): Stretch[] {
  return windows.map((w, window) => {
    const { from, to } = storedBucketRange(w, DAY);
    return { window, from: clamp(from), to: clamp(to) };
  });
}

const asDateTime = (t: number) => literal(new Date(t * 1000));
const asDate = (t: number) => sql`toDate(${new Date(t * 1000).toISOString().slice(0, 10)})`;

/** A rollup's time column: its type for literals (so the primary key prunes) and its start as Unix seconds. */
const TIME_COLUMNS = {
  hour: { literal: asDateTime, seconds: 'toUInt32(hour)' },
  day: { literal: asDate, seconds: `toUInt32(toUInt32(day) * ${DAY})` },
} as const;

/**
 * One rollup's rows for the stretches: the entity at the report's level, the
 * segment value, the window each row belongs to (`multiIf`) and its bucket start `t`.
 */
function rollupRows(
  database: string,
  tableName: string,
  time: keyof typeof TIME_COLUMNS,
  stretches: Stretch[],
  scope: ReportScope,
  query: InsightsQuery,
  segmentValue: string,
  extraCondition = '',
): string {
  const column = TIME_COLUMNS[time];
  const conditions = stretches.map(({ from, to }) => `(${time} >= ${column.literal(from)} AND ${time} < ${column.literal(to)})`);
  const windowIndex = `multiIf(${[...stretches.flatMap((s, i) => [conditions[i], literal(s.window)]), '255'].join(', ')})`;
  return `SELECT ${entityColumn(query.level)} AS entity_id, ${segmentValue} AS segment_value, ${windowIndex} AS window_index,
      ${column.seconds} AS t, impressions, clicks, spend_micros
    FROM ${table(database, tableName)}
    WHERE ${scopeCondition(scope, query)}${extraCondition} AND (${conditions.join(' OR ')})`;
}

/** The report bucket of a stored bucket start `t` (monthly: `YYYYMM`, decoded by the caller). */
function reportBucketExpression(granularity: InsightsQuery['granularity']): string {
  switch (granularity) {
    case 'hourly':
      return 't';
    case 'daily':
      return `intDiv(t, ${DAY}) * ${DAY}`;
    case 'monthly':
      return `toYYYYMM(toDateTime(t), 'UTC')`;
    case 'none':
      return '0';
  }
}

/** The inner SELECTs a request needs. */
function sources(database: string, scope: ReportScope, query: InsightsQuery): string[] {
  const { hours, days } = ownSupplyPlan(query.windows, query.granularity === 'hourly');
  const inner: string[] = [];
  const add = (tableName: string, time: keyof typeof TIME_COLUMNS, stretches: Stretch[], segmentValue: string, extra = '') => {
    if (stretches.length > 0) inner.push(rollupRows(database, tableName, time, stretches, scope, query, segmentValue, extra));
  };
  if (query.segment === 'country' || query.segment === 'device') {
    // Own supply only (the spec's rule); the segments rollups hold nothing else.
    const segment = identifier(query.segment);
    add(DELIVERY_TABLES.segmentsHourly, 'hour', hours, segment);
    add(DELIVERY_TABLES.segmentsDaily, 'day', days, segment);
    return inner;
  }
  const source = query.source === 'all' ? '' : sql` AND source = ${query.source}`;
  add(DELIVERY_TABLES.hourly, 'hour', hours, 'source', source);
  add(DELIVERY_TABLES.daily, 'day', days, 'source', source);
  if (query.source !== 'own') add(DELIVERY_TABLES.externalDaily, 'day', externalPlan(query.windows), "'external'");
  return inner;
}

/** The report query's columns, in SELECT order (its rows are read as TabSeparated text). */
export const REPORT_COLUMNS = ['window_index', 'bucket', 'entity_id', 'segment_value', 'impressions', 'clicks', 'spend_micros'] as const;
export type ReportQueryRow = Record<(typeof REPORT_COLUMNS)[number], string>;

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
