import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, sql } from '../../lib/clickhouse/sql';
import type { AddedColumn } from '../../lib/clickhouse/schema';

/**
 * ClickHouse tables of delivery data: DDL beside the code that writes
 * (domain/delivery/rows.ts, domain/delivery/external-supply.ts) and reads
 * (domain/insights/sql.ts) them. Applied by scripts/clickhouse-migrate.ts.
 * ClickHouse 18.16 syntax: no LowCardinality, no DateTime64.
 *
 * Own supply:
 *  - `delivery_events`: one row per delivery event written by the trackers
 *    (impression, click, spend), idempotent on `event_id` (which conversion
 *    attribution joins on: domain/events/conversions.ts). ReplacingMergeTree
 *    folds a re-sent event at merge time; `insertDeliveryRows` also drops ids
 *    already stored, because the materialized views below see every insert.
 *    Reports never scan it; it is the source of truth for reconciliation.
 *  - `delivery_hourly` / `delivery_daily`: SummingMergeTree per (entity path,
 *    source, UTC hour / UTC day), each fed by its materialized view (`_mv`).
 *    Every report without audience segments: whole UTC days inside a window
 *    come from the daily table, the hours at its edges (and hourly reports)
 *    from the hourly one (domain/insights/sql.ts).
 *  - `delivery_segments_hourly` / `delivery_segments_daily`: the same per (ad
 *    group, ad, time, country, device), own supply only. The country and
 *    device segments (ad-group or ad scope only, per the spec).
 *  - `dsp_delivery_events`: impressions and clicks of ads external DSPs won on
 *    our supply (what they owe us: `revenue_micros`), idempotent on `event_id`
 *    like `delivery_events`; no advertiser of ours is charged for them.
 * External supply:
 *  - `external_supply_daily`: a partner's daily report rows, one partition per
 *    (partner, UTC month); an import rewrites the months it touches and swaps
 *    each in atomically (ALTER TABLE ... REPLACE PARTITION), so a re-imported
 *    day replaces the old one and is never counted twice.
 *
 * Invalid traffic (invalid-traffic.ts): a delivery row of an invalid event carries its
 * `invalid_reason` and counts nothing (no impression, click, spend or revenue);
 * `invalid_traffic_hourly` (SummingMergeTree per publisher, UTC hour, campaign,
 * source, country, event type and reason: `events`) counts them, fed by a view on each
 * row table; publisher reports and delivery diagnostics read it.
 *
 * Every time is a `DateTime('UTC')`; money is `spend_micros Int64`.
 */
export const DELIVERY_TABLES = {
  rows: 'delivery_events',
  hourly: 'delivery_hourly',
  daily: 'delivery_daily',
  segmentsHourly: 'delivery_segments_hourly',
  segmentsDaily: 'delivery_segments_daily',
  externalDaily: 'external_supply_daily',
  dspRows: 'dsp_delivery_events',
  invalid: 'invalid_traffic_hourly',
} as const;

/** Columns the row tables gained after they were first created (scripts/clickhouse-migrate.ts adds them). */
export const DELIVERY_ADDED_COLUMNS: AddedColumn[] = [
  { table: DELIVERY_TABLES.rows, column: 'invalid_reason', type: "String DEFAULT ''" },
  { table: DELIVERY_TABLES.dspRows, column: 'invalid_reason', type: "String DEFAULT ''" },
];

/** The invalid-traffic rollup and its views: applied after DELIVERY_ADDED_COLUMNS (the views read `invalid_reason`). */
export function invalidTrafficTables(database: string): string[] {
  const db = identifier(database);
  const t = `${db}.${DELIVERY_TABLES.invalid}`;
  const view = (name: string, from: string, campaign: string, source: string) =>
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_${name}_mv TO ${t} AS
     SELECT publisher_id, toStartOfHour(event_time) AS hour, ${campaign} AS campaign_id, ${source} AS source, country, event_type,
            invalid_reason AS reason, count() AS events
     FROM ${db}.${from}
     WHERE invalid_reason != ''
     GROUP BY publisher_id, hour, campaign_id, source, country, event_type, reason`;
  return [
    `CREATE TABLE IF NOT EXISTS ${t} (
       publisher_id String,
       hour DateTime('UTC'),
       campaign_id String,
       source String,
       country String,
       event_type String,
       reason String,
       events UInt64
     ) ENGINE = SummingMergeTree((events))
     PARTITION BY toYYYYMM(hour)
     ORDER BY (publisher_id, hour, campaign_id, source, country, event_type, reason)`,
    view('inhouse', DELIVERY_TABLES.rows, 'campaign_id', "'inhouse'"),
    view('dsp', DELIVERY_TABLES.dspRows, "''", 'dsp_id'),
  ];
}

/** The entity path every delivery row and rollup carries, coarsest first. */
const ENTITY_COLUMNS = `organization_id String,
       ad_account_id String,
       campaign_id String,
       ad_group_id String,
       ad_id String`;

const METRIC_COLUMNS = `impressions Int64,
       clicks Int64,
       spend_micros Int64`;

/** A rollup's columns between the entity path and the metrics: its time bucket and its segments, in table order. */
interface RollupColumn {
  name: string;
  type: string;
  /** How the materialized view computes it from a delivery row (default: the column of the same name). */
  from?: string;
}

const HOUR: RollupColumn = { name: 'hour', type: "DateTime('UTC')", from: 'toStartOfHour(event_time)' };
const DAY: RollupColumn = { name: 'day', type: 'Date', from: "toDate(event_time, 'UTC')" };
const SOURCE: RollupColumn = { name: 'source', type: 'String' };
const COUNTRY: RollupColumn = { name: 'country', type: 'String' };
const DEVICE: RollupColumn = { name: 'device', type: 'String' };

/** A SummingMergeTree of the delivery rows per entity path and `columns`, and the materialized view that feeds it. */
function rollup(db: string, table: string, columns: RollupColumn[], orderBy: string, where?: string): string[] {
  const bucket = columns.find((c) => c === HOUR || c === DAY)!.name;
  const entity = 'organization_id, ad_account_id, campaign_id, ad_group_id, ad_id';
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.${table} (
       ${ENTITY_COLUMNS},
       ${columns.map((c) => `${c.name} ${c.type}`).join(',\n       ')},
       ${METRIC_COLUMNS}
     ) ENGINE = SummingMergeTree((impressions, clicks, spend_micros))
     PARTITION BY toYYYYMM(${bucket})
     ORDER BY (${orderBy})`,

    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${db}.${table}_mv TO ${db}.${table} AS
     SELECT ${entity},
            ${columns.map((c) => (c.from ? `${c.from} AS ${c.name}` : c.name)).join(', ')},
            sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS spend_micros
     FROM ${db}.${DELIVERY_TABLES.rows}${
       where
         ? `
     WHERE ${where}`
         : ''
     }
     GROUP BY ${entity}, ${columns.map((c) => c.name).join(', ')}`,
  ];
}

export function deliveryTables(database: string): string[] {
  const db = identifier(database);
  const t = DELIVERY_TABLES;
  return [
    `CREATE TABLE IF NOT EXISTS ${db}.${t.rows} (
       event_id String,
       event_type String,
       event_time DateTime('UTC'),
       ${ENTITY_COLUMNS},
       source String,
       country String,
       device String,
       publisher_id String,
       auction_id String,
       ${METRIC_COLUMNS},
       inserted_at DateTime('UTC') DEFAULT now()
     ) ENGINE = ReplacingMergeTree(inserted_at)
     PARTITION BY toYYYYMM(event_time)
     ORDER BY (organization_id, ad_account_id, campaign_id, event_time, event_id)`,

    ...rollup(db, t.hourly, [SOURCE, HOUR], 'organization_id, ad_account_id, hour, campaign_id, ad_group_id, ad_id, source'),
    ...rollup(db, t.daily, [SOURCE, DAY], 'organization_id, ad_account_id, day, campaign_id, ad_group_id, ad_id, source'),
    ...rollup(db, t.segmentsHourly, [HOUR, COUNTRY, DEVICE], 'organization_id, ad_group_id, hour, ad_id, country, device', "source = 'own'"),
    ...rollup(db, t.segmentsDaily, [DAY, COUNTRY, DEVICE], 'organization_id, ad_group_id, day, ad_id, country, device', "source = 'own'"),

    `CREATE TABLE IF NOT EXISTS ${db}.${t.dspRows} (
       event_id String,
       event_type String,
       event_time DateTime('UTC'),
       auction_id String,
       dsp_id String,
       bid_id String,
       publisher_id String,
       country String,
       device String,
       impressions Int64,
       clicks Int64,
       revenue_micros Int64,
       inserted_at DateTime('UTC') DEFAULT now()
     ) ENGINE = ReplacingMergeTree(inserted_at)
     PARTITION BY toYYYYMM(event_time)
     ORDER BY (dsp_id, event_time, event_id)`,

    `CREATE TABLE IF NOT EXISTS ${db}.${t.externalDaily} (
       partner String,
       day Date,
       ${ENTITY_COLUMNS},
       ${METRIC_COLUMNS},
       imported_at DateTime('UTC')
     ) ENGINE = MergeTree()
     PARTITION BY (partner, toYYYYMM(day))
     ORDER BY (organization_id, ad_account_id, day, campaign_id, ad_group_id, ad_id)`,
  ];
}

/**
 * Databases created before this design hold a placeholder `delivery_events`
 * without counts (no writer ever filled it). ClickHouse 18.16 has no
 * `ADD COLUMN IF NOT EXISTS`, so such a table is renamed aside
 * (`delivery_events_legacy_<unix>`, nothing dropped) before the DDL above runs.
 */
export async function retireLegacyDeliveryEvents(ch: ClickHouseClient, database: string): Promise<void> {
  const columns = await (
    await ch.query({
      query: `SELECT name FROM system.columns WHERE ${sql`database = ${database} AND table = ${DELIVERY_TABLES.rows}`}`,
      format: 'JSONEachRow',
    })
  ).json<{ name: string }>();
  if (columns.length === 0 || columns.some((c) => c.name === 'impressions')) return;
  const db = identifier(database);
  await ch.command({ query: `RENAME TABLE ${db}.${DELIVERY_TABLES.rows} TO ${db}.${DELIVERY_TABLES.rows}_legacy_${Math.floor(Date.now() / 1000)}` });
}
