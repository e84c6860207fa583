/**
 * An insights report: scope from PostgreSQL, numbers from ClickHouse, entity
 * names from PostgreSQL again, then the decoded rows are filtered, sorted and
 * paged in memory (as the spec says: "sorting, filtering and paging happen on
 * the decoded set"), which is what makes cursors exact even when rows tie.
 */
import type { ClickHouseClient } from '@clickhouse/client';
import type { Db } from '../../lib/db';
import { DomainError, notFound } from '../errors';
import { isUuid, normalizeId } from '../ids';
import { runAnalyticsQuery } from './analytics-query';
import { engagementRows, mergeEngagement, type MergedRow } from './engagement';
import { parseInsightsQuery, type InsightsQuery, type Level, type Metric, type RawQuery, type SortKey } from './query';
import { REPORT_COLUMNS, reportQuery, type ReportScope } from './sql';
import { readableTime, reportBucket, type TimeWindow } from './time-windows';

/** Rows one report decodes at most (the spec's "fixed maximum"); see docs/api-behaviour.md, Insights. */
export const ROW_CAP = 20_000;

export interface InsightsDeps {
  db: Db;
  ch: ClickHouseClient;
  /** The ClickHouse database holding the delivery tables. */
  database: string;
  /** Budget of one report query, whole seconds (ClickHouse's max_execution_time). */
  timeoutSeconds: number;
}

/** The endpoint a report is asked from: its level and (below the ad account) the entity id in the path. */
export interface ReportTarget {
  level: Level;
  id?: string;
}

/**
 * One insights request, parsed once for every caller: the four endpoints (the
 * level theirs, the id from their path) and report exports (both from the body,
 * the id then required below the ad account and refused with it). The query by
 * the endpoint's own rules and codes (query.ts parseInsightsQuery).
 */
export function parseInsightsRequest(level: Level, id: string | null | undefined, raw: RawQuery): { target: ReportTarget; query: InsightsQuery } {
  if (level === 'ad_account' && id) throw new DomainError('invalid_value', 'id is not used with level ad_account', 'id');
  if (level !== 'ad_account' && !id) throw new DomainError('required', `id is required with level ${level}`, 'id');
  const query = parseInsightsQuery(raw, level);
  return { target: { level, ...(id ? { id } : {}) }, query };
}

export type InsightRow = Record<string, string | number | null>;

export interface InsightsPage {
  object: 'list';
  data: InsightRow[];
  count: number;
  first_id: string | null;
  last_id: string | null;
  has_more: boolean;
}

/** The endpoint's entity: where a report may look, and the entity's own name. */
export interface ResolvedScope {
  scope: ReportScope;
  id: string;
  name: string;
}

/** The endpoint's entity within the organization, as the path down from its ad account; 404 otherwise. */
export async function resolveScope(db: Db, organizationId: string, target: ReportTarget): Promise<ResolvedScope> {
  const missing = () => notFound(target.level.replace('_', ' '));
  if (target.level === 'ad_account') {
    const account = await db.adAccount.findFirst({ where: { organizationId, isDefault: true }, select: { id: true, name: true } });
    if (!account) throw missing();
    return { scope: { organizationId, adAccountId: account.id }, id: account.id, name: account.name };
  }
  const id = normalizeId(target.id);
  if (!id) throw missing();
  if (target.level === 'campaign') {
    const campaign = await db.campaign.findFirst({ where: { id, organizationId }, select: { name: true, adAccountId: true } });
    if (!campaign) throw missing();
    return { scope: { organizationId, adAccountId: campaign.adAccountId, campaignId: id }, id, name: campaign.name };
  }
  if (target.level === 'ad_group') {
    const group = await db.adGroup.findFirst({
      where: { id, campaign: { organizationId } },
      select: { name: true, campaign: { select: { id: true, adAccountId: true } } },
    });
    if (!group) throw missing();
    return { scope: { organizationId, adAccountId: group.campaign.adAccountId, campaignId: group.campaign.id, adGroupId: id }, id, name: group.name };
  }
  const ad = await db.ad.findFirst({
    where: { id, adGroup: { campaign: { organizationId } } },
    select: { name: true, adGroup: { select: { id: true, campaign: { select: { id: true, adAccountId: true } } } } },
  });
  if (!ad) throw missing();
  const scope = { organizationId, adAccountId: ad.adGroup.campaign.adAccountId, campaignId: ad.adGroup.campaign.id, adGroupId: ad.adGroup.id, adId: id };
  return { scope, id, name: ad.name };
}

/** Names fetched ahead, at most this many: beyond, the rows' own entities are looked up. */
const NAME_PREFETCH_CAP = 2000;

/**
 * Display names at `level`, from PostgreSQL, scoped to the organization and
 * to either the given ids or (`ids` null) every entity under the report scope
 * (fetched while ClickHouse computes the numbers).
 */
async function entityNames(db: Db, scope: ReportScope, level: Level, ids: string[] | null): Promise<Map<string, string>> {
  const { organizationId } = scope;
  const valid = ids?.filter(isUuid);
  if (valid?.length === 0) return new Map();
  const byId = valid ? { id: { in: valid } } : {};
  const take = valid ? undefined : NAME_PREFETCH_CAP;
  const inScope = !valid;
  const select = { id: true, name: true } as const;
  const campaignScope = { organizationId, ...(inScope ? { adAccountId: scope.adAccountId, ...(scope.campaignId ? { id: scope.campaignId } : {}) } : {}) };
  const groupScope = { campaign: campaignScope, ...(inScope && scope.adGroupId ? { id: scope.adGroupId } : {}) };
  let found: { id: string; name: string }[];
  switch (level) {
    case 'ad_account':
      found = await db.adAccount.findMany({ where: { ...byId, organizationId }, select, take });
      break;
    case 'campaign':
      found = await db.campaign.findMany({ where: { ...byId, ...campaignScope }, select, take });
      break;
    case 'ad_group':
      found = await db.adGroup.findMany({ where: { ...byId, ...groupScope }, select, take });
      break;
    case 'ad':
      found = await db.ad.findMany({ where: { ...byId, adGroup: groupScope, ...(inScope && scope.adId ? { id: scope.adId } : {}) }, select, take });
      break;
  }
  return new Map(found.map((e) => [e.id, e.name]));
}

// ---------------------------------------------------------------------------
// Metrics: integers and micros are exact; dollars appear only here, each one
// division of an exact integer (correctly rounded, no drift from summing floats).
// ---------------------------------------------------------------------------

interface Totals {
  impressions: number;
  clicks: number;
  spendMicros: bigint;
  pollVotes: number;
  conversions: number;
}

function metricValue(metric: Metric, t: Totals): number | null {
  const micros = Number(t.spendMicros);
  switch (metric) {
    case 'impressions':
      return t.impressions;
    case 'clicks':
      return t.clicks;
    case 'spend':
      return micros / 1_000_000;
    case 'ctr':
      return t.impressions === 0 ? null : t.clicks / t.impressions;
    case 'cpc':
      return t.clicks === 0 ? null : micros / (t.clicks * 1_000_000);
    case 'cpm':
      return t.impressions === 0 ? null : micros / (t.impressions * 1_000);
    case 'poll_votes':
      return t.pollVotes;
    case 'conversions':
      return t.conversions;
  }
}

/** A result row with the metrics its filters, sort and fields need; presented only if it lands on the page. */
interface DecodedRow {
  id: string;
  values: Partial<Record<Metric, number | null>>;
  bucket: ReportBucket;
  source: MergedRow;
}

interface ReportBucket {
  start: number;
  end: number;
  readable?: string;
}

/** The row id: `start=<unix>:end=<unix>:entity_id=<uuid>` plus `:<segment>=<value>` when segmented. */
export function rowId(start: number, end: number, entityId: string, segment: string | null, segmentValue: string): string {
  return `start=${start}:end=${end}:entity_id=${entityId}${segment ? `:${segment}=${segmentValue}` : ''}`;
}

/** The UTC bucket of a result row, cut to its window. */
function rowBucket(query: InsightsQuery, window: TimeWindow, bucket: number): ReportBucket {
  if (query.granularity === 'none') return { start: window.start, end: window.end };
  const start = query.granularity === 'monthly' ? Date.UTC(Math.floor(bucket / 100), (bucket % 100) - 1, 1) / 1000 : bucket;
  const full = reportBucket(start, query.granularity);
  return {
    start: Math.max(full.start, window.start),
    end: Math.min(full.end, window.end),
    readable: readableTime(full.start, query.granularity),
  };
}

/** The metrics a request uses: its fields, filters and sort keys. */
const metricsUsed = (query: InsightsQuery) => [
  ...new Set<Metric>([...query.fields, ...query.metricFilters.map((f) => f.metric), ...query.sort.map((s) => s.metric)]),
];

function decode(query: InsightsQuery, rows: MergedRow[]): DecodedRow[] {
  const metrics = metricsUsed(query);
  // Many rows share a bucket: cut each (window, bucket) once.
  const buckets = new Map<string, ReportBucket>();
  return rows.map((r) => {
    const key = `${r.window_index}:${r.bucket}`;
    let bucket = buckets.get(key);
    if (!bucket) buckets.set(key, (bucket = rowBucket(query, query.windows[Number(r.window_index)], Number(r.bucket))));
    const totals: Totals = {
      impressions: Number(r.impressions),
      clicks: Number(r.clicks),
      spendMicros: BigInt(r.spend_micros),
      pollVotes: r.poll_votes,
      conversions: r.conversions,
    };
    const values: DecodedRow['values'] = {};
    for (const metric of metrics) values[metric] = metricValue(metric, totals);
    return { id: rowId(bucket.start, bucket.end, r.entity_id, query.segment, r.segment_value), values, bucket, source: r };
  });
}

/** The insight row as the spec shows it. */
function present(query: InsightsQuery, names: Map<string, string>, decoded: DecodedRow): InsightRow {
  const { bucket, source: r } = decoded;
  const row: InsightRow = { id: decoded.id, start_time: bucket.start, end_time: bucket.end };
  if (bucket.readable !== undefined) row.readable_time = bucket.readable;
  row.timezone = 'UTC';
  row[`${query.level}_id`] = r.entity_id;
  row[`${query.level}_name`] = names.get(r.entity_id) ?? '';
  if (query.segment) row[query.segment] = r.segment_value;
  for (const field of query.fields) row[field] = decoded.values[field]!;
  return row;
}

function matchesFilters(query: InsightsQuery, row: DecodedRow): boolean {
  return query.metricFilters.every(({ metric, operator, values }) => {
    const value = row.values[metric]!;
    if (value === null) return false;
    if (operator === 'IN') return values.includes(value);
    return operator === 'GREATER_THAN' ? value > values[0] : value < values[0];
  });
}

/** Sort keys in order (nulls last whatever the direction), then the row id ascending. */
function compareRows(sort: SortKey[]) {
  return (a: DecodedRow, b: DecodedRow): number => {
    for (const { metric, direction } of sort) {
      const x = a.values[metric]!;
      const y = b.values[metric]!;
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      return direction === 'asc' ? x - y : y - x;
    }
    return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
  };
}

/** One page of the sorted rows: `after` continues past a row, `before` walks back from one; both exclusive. */
function page(rows: DecodedRow[], query: InsightsQuery, presentRow: (row: DecodedRow) => InsightRow): InsightsPage {
  let from = 0;
  let to = Math.min(query.limit, rows.length);
  let hasMore = rows.length > query.limit;
  const cursor = query.after ?? query.before;
  if (cursor !== undefined) {
    const at = rows.findIndex((r) => r.id === cursor);
    if (at < 0) throw new DomainError('invalid_cursor', 'Unknown cursor: not a row of this report', query.after !== undefined ? 'after' : 'before');
    if (query.after !== undefined) {
      from = at + 1;
      to = Math.min(from + query.limit, rows.length);
      hasMore = to < rows.length;
    } else {
      to = at;
      from = Math.max(0, at - query.limit);
      hasMore = from > 0;
    }
  }
  const data = rows.slice(from, to).map(presentRow);
  return {
    object: 'list',
    data,
    count: data.length,
    first_id: (data[0]?.id as string | undefined) ?? null,
    last_id: (data[data.length - 1]?.id as string | undefined) ?? null,
    has_more: hasMore,
  };
}

/** The report of `query` for the endpoint `target`, within the organization. */
export async function runInsights(deps: InsightsDeps, organizationId: string, target: ReportTarget, query: InsightsQuery): Promise<InsightsPage> {
  return runInsightsInScope(deps, await resolveScope(deps.db, organizationId, target), target.level, query);
}

/** The report of `query` within an already resolved scope (whose own level is `targetLevel`). */
export async function runInsightsInScope(deps: InsightsDeps, resolved: ResolvedScope, targetLevel: Level, query: InsightsQuery): Promise<InsightsPage> {
  const { rows, present } = await sortedReport(deps, resolved, targetLevel, query);
  return page(rows, query, present);
}

/**
 * Every row of the report, in its order, as the pages show them: what a report
 * export writes (domain/insights/exports.ts). The same decoded set as the pages
 * (filters, sort), so its figures are the paged endpoint's; `limit`, `before`
 * and `after` are not used. A report over the row cap is `report_too_large`:
 * the pages would show its first ROW_CAP rows only, and an export equal to the
 * pages and holding every row cannot be both.
 */
export async function allInsightRows(deps: InsightsDeps, organizationId: string, target: ReportTarget, query: InsightsQuery): Promise<InsightRow[]> {
  const { rows, present, capped } = await sortedReport(deps, await resolveScope(deps.db, organizationId, target), target.level, query);
  // An export promises every row: a report the cap cut short is refused, never written short.
  if (capped) {
    throw new DomainError(
      'report_too_large',
      `The report holds more than ${ROW_CAP.toLocaleString('en-US')} rows, the most one report decodes: narrow the time range, the granularity, the aggregation level or the segment, or export it in parts`,
      null,
    );
  }
  return rows.map(present);
}

/** The decoded, filtered and sorted rows of a report, and how one is presented. */
async function sortedReport(deps: InsightsDeps, resolved: ResolvedScope, targetLevel: Level, query: InsightsQuery) {
  // The names under the scope load while ClickHouse counts (at the endpoint's own level the one name is known).
  // So do poll votes and conversions, when the request uses them.
  const [result, names, engagement] = await Promise.all([
    runAnalyticsQuery(deps.ch, reportQuery(deps.database, resolved.scope, query, ROW_CAP), deps.timeoutSeconds, REPORT_COLUMNS),
    query.level === targetLevel ? new Map([[resolved.id, resolved.name]]) : entityNames(deps.db, resolved.scope, query.level, null),
    engagementRows(deps, resolved.scope, query, metricsUsed(query)),
  ]);
  // Over the cap: the first ROW_CAP rows in (window, bucket, entity, segment) order are the decoded set (the query reads one more, to know).
  const merged = mergeEngagement(result, engagement, ROW_CAP + 1);
  const capped = merged.length > ROW_CAP;
  const decoded = capped ? merged.slice(0, ROW_CAP) : merged;
  const unnamed = [...new Set(decoded.map((r) => r.entity_id))].filter((id) => !names.has(id));
  if (unnamed.length > 0) for (const [id, name] of await entityNames(deps.db, resolved.scope, query.level, unnamed)) names.set(id, name);
  const rows = decode(query, decoded).filter((row) => matchesFilters(query, row));
  rows.sort(compareRows(query.sort));
  return { rows, capped, present: (row: DecodedRow) => present(query, names, row) };
}
