import type { ClickHouseClient } from '@clickhouse/client';
import { z } from 'zod';
import type { Db } from '../../lib/db';
import { config } from '../../lib/config';
import { identifier, sql } from '../../lib/clickhouse/sql';
import { createClickhouse } from '../../lib/clickhouse/client';
import { CLICKHOUSE_18_16, clickhouseDialect, type ClickhouseDialect } from '../../lib/clickhouse/dialect';
import { DomainError } from '../../lib/errors';
import { parseOrThrow } from '../../lib/validation';
import { isUuid } from '../../domain/ids';
import { notFound } from '../../domain/errors';
import { analyticsBudget, analyticsTimeout, isBudgetExceeded } from '../../domain/insights/analytics-query';
import { contentCategory } from '../../domain/understanding/content-taxonomy';
import { DELIVERY_TABLES } from '../../domain/delivery/clickhouse-tables';
import { REPORT_TABLES } from './clickhouse-tables';

/**
 * A publisher's own report (GET /v1/reports with its key, `adctl publisher
 * report`): per UTC day or hour, and per source, format, country, category
 * or language, its requests, fills and no-fill reasons (the auction log's
 * rollups, by auction time) and its impressions, clicks and revenue (the
 * delivery rollup, by event time). Money is summed in integer micros in ClickHouse; USD only here.
 * docs/api-behaviour.md, "Publisher reports", says what each field means.
 */
export const REPORT_GRANULARITIES = ['daily', 'hourly'] as const;
export const REPORT_GROUPS = ['source', 'format', 'country', 'category', 'language'] as const;
type ReportGroup = (typeof REPORT_GROUPS)[number];

/**
 * Where each group's key is (auction/reports/clickhouse-tables.ts): the rollup
 * of the auction log that has it, and, since deliveries carry neither format
 * nor topic, the table of each fill's key a delivery takes from its auction
 * (null: the delivery and invalid-traffic rollups have the key themselves).
 */
const GROUP_TABLES: Record<ReportGroup, { auctions: string; fills: string | null }> = {
  source: { auctions: REPORT_TABLES.auctions, fills: null },
  format: { auctions: REPORT_TABLES.auctions, fills: REPORT_TABLES.fillFormats },
  country: { auctions: REPORT_TABLES.auctions, fills: null },
  category: { auctions: REPORT_TABLES.topics, fills: REPORT_TABLES.fillTopics },
  language: { auctions: REPORT_TABLES.topics, fills: REPORT_TABLES.fillTopics },
};
/** The widest report: a year (and a leap day) of days, or a month of hours. */
export const MAX_REPORT_DAYS = { daily: 366, hourly: 31 } as const;

const DAY_MS = 86_400_000;
const HOUR_MS = 3_600_000;

export const reportQuerySchema = z.object({
  start_date: z.iso.date().describe('First day of the report (YYYY-MM-DD, UTC), inclusive'),
  end_date: z.iso
    .date()
    .describe(
      `Last day of the report (YYYY-MM-DD, UTC), inclusive; not before start_date, and at most ${MAX_REPORT_DAYS.daily} days after it counted inclusively (${MAX_REPORT_DAYS.hourly} for hourly)`,
    ),
  granularity: z.enum(REPORT_GRANULARITIES).default('daily').describe('One row per UTC day (`daily`) or UTC hour (`hourly`)'),
  group_by: z
    .enum(REPORT_GROUPS)
    .optional()
    .describe(
      "Also one row per source (`inhouse` or a DSP id), served format, request country, the conversation's category (its first IAB Content Taxonomy 3.0 tier-1 id) or its language (ISO 639-1); absent: no grouping",
    ),
});
export type ReportQuery = z.output<typeof reportQuerySchema>;

/** The report's time window, [from, to): whole UTC days. */
export interface ReportWindow {
  from: Date;
  to: Date;
}

/** The rules one query parameter's schema cannot state: end not before start, and the range's width. */
export function reportWindow(query: ReportQuery): ReportWindow {
  const from = new Date(`${query.start_date}T00:00:00Z`);
  const last = new Date(`${query.end_date}T00:00:00Z`);
  if (last < from) throw new DomainError('invalid_value', 'end_date must not be before start_date', 'end_date');
  const days = Math.round((last.getTime() - from.getTime()) / DAY_MS) + 1;
  const max = MAX_REPORT_DAYS[query.granularity];
  if (days > max) throw new DomainError('invalid_value', `a ${query.granularity} report covers at most ${max} days (this one ${days})`, 'end_date');
  return { from, to: new Date(last.getTime() + DAY_MS) };
}

export interface ReportDeps {
  db: Db;
  ch: ClickHouseClient;
  database: string;
}

/** The publisher a report is of: its public id (what the auction log and the delivery rows carry). */
export interface ReportPublisher {
  publicId: string;
  test: boolean;
}

/** Counts of one (bucket, group), as summed from the rollups. */
interface Counts {
  requests: number;
  filled: number;
  noFill: Record<string, number>;
  impressions: number;
  clicks: number;
  revenueMicros: bigint;
  /** Invalid traffic (domain/delivery/invalid-traffic.ts): impressions and clicks, and both by reason. */
  invalidImpressions: number;
  invalidClicks: number;
  invalid: Record<string, number>;
}

const emptyCounts = (): Counts => ({
  requests: 0,
  filled: 0,
  noFill: {},
  impressions: 0,
  clicks: 0,
  revenueMicros: 0n,
  invalidImpressions: 0,
  invalidClicks: 0,
  invalid: {},
});

/** ClickHouse's DateTime range: a window outside it is cut to it (and reads nothing there). */
const CLICKHOUSE_MIN = new Date('1970-01-02T00:00:00Z');
const CLICKHOUSE_MAX = new Date('2105-12-31T00:00:00Z');
const clamp = (d: Date) => new Date(Math.min(Math.max(d.getTime(), CLICKHOUSE_MIN.getTime()), CLICKHOUSE_MAX.getTime()));

/** The SQL of one report's two reads (exported for the SQL test against ClickHouse), in the server's dialect (default 18.16's). */
export function reportSql(
  database: string,
  publisherId: string,
  query: ReportQuery,
  window: ReportWindow,
  dialect: ClickhouseDialect = CLICKHOUSE_18_16,
): { auctions: string; delivery: string; invalid: string } {
  const db = identifier(database);
  const from = clamp(window.from);
  const to = clamp(window.to);
  // Bucket start as Unix seconds: the UTC hour, or the UTC day it is in.
  const bucket = (hour: string) => (query.granularity === 'hourly' ? `toUnixTimestamp(${hour})` : `toUnixTimestamp(toStartOfDay(${hour}))`);
  const group = query.group_by ?? null;
  const tables = group ? GROUP_TABLES[group] : { auctions: REPORT_TABLES.auctions, fills: null };
  const auctions = `SELECT ${bucket('hour')} AS bucket, ${group ?? "''"} AS grp, no_fill_reason AS reason, sum(requests) AS requests, sum(filled) AS filled
    FROM ${db}.${tables.auctions}
    WHERE ${sql`publisher_id = ${publisherId} AND hour >= ${from} AND hour < ${to}`}
    GROUP BY bucket, grp, reason`;
  // By a key deliveries take from their auction (format, category, language), invalid traffic is in the row of none (its rollup has none).
  const invalid = `SELECT ${bucket('hour')} AS bucket, ${group && !tables.fills ? group : "''"} AS grp, event_type, reason, sum(events) AS events
    FROM ${db}.${DELIVERY_TABLES.invalid}
    WHERE ${sql`publisher_id = ${publisherId} AND hour >= ${from} AND hour < ${to}`}
    GROUP BY bucket, grp, event_type, reason`;
  if (!group || !tables.fills) {
    const delivery = `SELECT ${bucket('hour')} AS bucket, ${group ?? "''"} AS grp, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(revenue_micros) AS revenue_micros
    FROM ${db}.${REPORT_TABLES.delivery}
    WHERE ${sql`publisher_id = ${publisherId} AND hour >= ${from} AND hour < ${to}`}
    GROUP BY bucket, grp`;
    return { auctions, delivery, invalid };
  }
  return { auctions, delivery: deliveryByAuctionSql(db, publisherId, bucket, from, to, dialect, { group, fills: tables.fills }), invalid };
}

/**
 * Deliveries carry no format, category or language: by one of them, the
 * publisher's delivery rows (publisher_delivery_events, sorted by publisher:
 * only its rows are read; each event once, however many copies are not merged
 * yet) take their auction's key from its fill's row (publisher_fill_formats,
 * publisher_fill_topics; the group is the column's name). An auction is at
 * most a click token's lifetime (and a day of margin) older than its deliveries.
 */
function deliveryByAuctionSql(
  db: string,
  publisherId: string,
  bucket: (hour: string) => string,
  from: Date,
  to: Date,
  dialect: ClickhouseDialect,
  by: { group: ReportGroup; fills: string },
): string {
  const auctionsFrom = clamp(new Date(from.getTime() - config.delivery.clickTokenTtlSeconds * 1000 - DAY_MS));
  const inWindow = sql`publisher_id = ${publisherId} AND event_time >= ${from} AND event_time < ${to}`;
  return `SELECT ${bucket('hour')} AS bucket, ${by.group} AS grp,
           sum(impressions) AS impressions, sum(clicks) AS clicks, sum(revenue) AS revenue_micros
    FROM (
      SELECT auction_id, toStartOfHour(any(event_time)) AS hour, any(impressions) AS impressions, any(clicks) AS clicks, any(revenue_micros) AS revenue
      FROM ${db}.${REPORT_TABLES.deliveryEvents} WHERE ${inWindow}
      GROUP BY source, event_id, auction_id
    )${dialect.joinAlias('delivery')}
    ANY LEFT JOIN (
      SELECT auction_id, any(${by.group}) AS ${by.group} FROM ${db}.${by.fills}
      WHERE ${sql`publisher_id = ${publisherId} AND day >= toDate(${auctionsFrom}) AND day < toDate(${to})`}
      GROUP BY auction_id
    )${dialect.joinAlias('fill')} USING auction_id
    GROUP BY bucket, grp`;
}

/** One read, stopped by ClickHouse past the report's budget (504 analytics_timeout). */
async function rows<T>(ch: ClickHouseClient, query: string): Promise<T[]> {
  try {
    return await (
      await ch.query({ query, format: 'JSONEachRow', clickhouse_settings: analyticsBudget(config.publisherReports.queryTimeoutSeconds) })
    ).json<T>();
  } catch (err) {
    if (isBudgetExceeded(err)) throw analyticsTimeout();
    throw err;
  }
}

type AuctionRow = { bucket: number | string; grp: string; reason: string; requests: number | string; filled: number | string };
type DeliveryRow = { bucket: number | string; grp: string; impressions: number | string; clicks: number | string; revenue_micros: number | string };
type InvalidRow = { bucket: number | string; grp: string; event_type: string; reason: string; events: number | string };

/** Both reads, summed per (bucket start in ms, group key). */
async function countsOf(deps: ReportDeps, publisherId: string, query: ReportQuery, window: ReportWindow): Promise<Map<string, Counts>> {
  const text = reportSql(deps.database, publisherId, query, window, await clickhouseDialect(deps.ch));
  const [auctions, delivery, invalid] = await Promise.all([
    rows<AuctionRow>(deps.ch, text.auctions),
    rows<DeliveryRow>(deps.ch, text.delivery),
    rows<InvalidRow>(deps.ch, text.invalid),
  ]);
  const counts = new Map<string, Counts>();
  const at = (bucket: number | string, grp: string) => {
    const key = `${Number(bucket) * 1000}\u0000${grp}`;
    let c = counts.get(key);
    if (!c) counts.set(key, (c = emptyCounts()));
    return c;
  };
  for (const r of auctions) {
    const c = at(r.bucket, r.grp);
    const requests = Number(r.requests);
    const filled = Number(r.filled);
    c.requests += requests;
    c.filled += filled;
    // Requests that did not fill, by reason; '' only on fills, unless the log did not say why (`unknown`).
    if (requests > filled) c.noFill[r.reason || 'unknown'] = (c.noFill[r.reason || 'unknown'] ?? 0) + requests - filled;
  }
  for (const r of delivery) {
    const c = at(r.bucket, r.grp);
    c.impressions += Number(r.impressions);
    c.clicks += Number(r.clicks);
    c.revenueMicros += BigInt(r.revenue_micros);
  }
  for (const r of invalid) {
    const c = at(r.bucket, r.grp);
    const events = Number(r.events);
    if (r.event_type === 'impression') c.invalidImpressions += events;
    if (r.event_type === 'click') c.invalidClicks += events;
    c.invalid[r.reason] = (c.invalid[r.reason] ?? 0) + events;
  }
  return counts;
}

/** The presented metrics of some counts: USD from micros, rates rounded to 6 decimals. */
function metrics(c: Counts) {
  const revenueMicros = Number(c.revenueMicros);
  return {
    requests: c.requests,
    filled: c.filled,
    fill_rate: c.requests > 0 ? Math.round((c.filled / c.requests) * 1e6) / 1e6 : 0,
    no_fill: Object.fromEntries(Object.entries(c.noFill).sort(([a], [b]) => a.localeCompare(b))),
    impressions: c.impressions,
    clicks: c.clicks,
    revenue: revenueMicros / 1e6,
    revenue_micros: revenueMicros,
    ecpm: c.impressions > 0 ? Math.round((revenueMicros * 1000) / c.impressions) / 1e6 : 0,
    invalid_impressions: c.invalidImpressions,
    invalid_clicks: c.invalidClicks,
    invalid_traffic: Object.fromEntries(Object.entries(c.invalid).sort(([a], [b]) => a.localeCompare(b))),
  };
}

function addInto(total: Counts, c: Counts): void {
  total.requests += c.requests;
  total.filled += c.filled;
  for (const [reason, n] of Object.entries(c.noFill)) total.noFill[reason] = (total.noFill[reason] ?? 0) + n;
  total.impressions += c.impressions;
  total.clicks += c.clicks;
  total.revenueMicros += c.revenueMicros;
  total.invalidImpressions += c.invalidImpressions;
  total.invalidClicks += c.invalidClicks;
  for (const [reason, n] of Object.entries(c.invalid)) total.invalid[reason] = (total.invalid[reason] ?? 0) + n;
}

const bucketLabel = (ms: number, granularity: ReportQuery['granularity']) =>
  granularity === 'hourly' ? { hour: new Date(ms).toISOString().replace('.000Z', 'Z') } : { date: new Date(ms).toISOString().slice(0, 10) };

/**
 * The group's key as presented: null where there is none (no fill has no source or format; a delivery whose auction is unknown,
 * no format, category or language; a conversation without a category or language, none).
 */
function groupLabel(group: ReportQuery['group_by'], key: string, dspNames: Map<string, string>) {
  if (!group) return {};
  const value = key === '' ? null : key;
  if (group === 'category') return { category: value, category_name: value === null ? null : (contentCategory(value)?.name ?? null) };
  if (group !== 'source') return { [group]: value };
  return { source: value, source_name: value === null ? null : value === 'inhouse' ? 'inhouse' : (dspNames.get(value) ?? null) };
}

/** DSP names by id, for the source group (an id that is not a DSP's, e.g. removed, has none). */
async function dspNamesOf(db: Db, keys: string[]): Promise<Map<string, string>> {
  const ids = keys.filter((k) => /^[0-9a-f-]{36}$/i.test(k));
  if (ids.length === 0) return new Map();
  const dsps = await db.dsp.findMany({ where: { id: { in: ids } }, select: { id: true, name: true } });
  return new Map(dsps.map((d) => [d.id, d.name]));
}

/** Every bucket start of the window (rows of an ungrouped report are never missing). */
function bucketsOf(window: ReportWindow, granularity: ReportQuery['granularity']): number[] {
  const step = granularity === 'hourly' ? HOUR_MS : DAY_MS;
  const out: number[] = [];
  for (let t = window.from.getTime(); t < window.to.getTime(); t += step) out.push(t);
  return out;
}

export async function publisherReport(deps: ReportDeps, publisher: ReportPublisher, query: ReportQuery) {
  const window = reportWindow(query);
  const counts = await countsOf(deps, publisher.publicId, query, window);
  const group = query.group_by;
  if (!group) for (const t of bucketsOf(window, query.granularity)) if (!counts.has(`${t}\u0000`)) counts.set(`${t}\u0000`, emptyCounts());
  const keys = [...counts.keys()].map((k) => {
    const [ms, grp] = k.split('\u0000');
    return { k, ms: Number(ms), grp };
  });
  keys.sort((a, b) => a.ms - b.ms || (a.grp === '' ? 1 : 0) - (b.grp === '' ? 1 : 0) || a.grp.localeCompare(b.grp));
  const dspNames = group === 'source' ? await dspNamesOf(deps.db, [...new Set(keys.map((k) => k.grp))]) : new Map<string, string>();
  const total = emptyCounts();
  const data = keys.map(({ k, ms, grp }) => {
    const c = counts.get(k)!;
    addInto(total, c);
    return { ...bucketLabel(ms, query.granularity), ...groupLabel(group, grp, dspNames), ...metrics(c) };
  });
  return {
    publisher_id: publisher.publicId,
    test: publisher.test,
    start_date: query.start_date,
    end_date: query.end_date,
    granularity: query.granularity,
    group_by: group ?? null,
    time_zone: 'UTC' as const,
    currency: 'USD' as const,
    data,
    totals: metrics(total),
  };
}

/**
 * `adctl publisher report`: any publisher's report by its public id, the query
 * checked as GET /v1/reports checks it (the same codes and params).
 */
export async function reportOfPublisher(db: Db, publicId: string, input: Record<string, string | undefined>) {
  const ch = createClickhouse();
  try {
    return await reportOf({ db, ch, database: config.clickhouse.database }, publicId, input);
  } finally {
    await ch.close();
  }
}

async function reportOf(deps: ReportDeps, publicId: string, input: Record<string, string | undefined>) {
  const found = isUuid(publicId) ? await deps.db.publisher.findUnique({ where: { publicId: publicId.toLowerCase() } }) : null;
  if (!found) throw notFound('publisher', 'publisher_id');
  const query = parseOrThrow(reportQuerySchema, Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)));
  return publisherReport(deps, { publicId: found.publicId, test: found.test }, query);
}
