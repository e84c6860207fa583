import type { ClickHouseClient } from '@clickhouse/client';
import { createTable } from '../../lib/clickhouse/schema';
import { identifier, sql } from '../../lib/clickhouse/sql';
import { DELIVERY_TABLES } from '../../domain/delivery/clickhouse-tables';
import { contentTaxonomy } from '../../domain/understanding/content-taxonomy';
import { AUCTION_LOG_TABLES } from '../log/clickhouse-tables';

/**
 * The rollups behind publisher reports (GET /v1/reports, `adctl publisher
 * report`; auction/reports/report.ts reads them). ClickHouse 18.16 syntax, every
 * statement IF NOT EXISTS; applied by scripts/clickhouse-migrate.ts after the
 * auction log has its `no_fill_reason` and `test` columns. Each table is fed by
 * materialized views (`_mv`), which see only rows inserted after they exist:
 * traffic from before a database gained them is not in any report.
 *
 *  - `publisher_auctions_hourly`: SummingMergeTree of the auction log per
 *    (publisher, UTC hour, test, source, format, country, no-fill reason):
 *    `requests` and `filled`. `source` is the winner (`inhouse` or the DSP's
 *    id), `format` the served format; both '' on no fill, where
 *    `no_fill_reason` says why ('' when filled).
 *  - `publisher_delivery_hourly`: SummingMergeTree of the delivery rows per
 *    (publisher, UTC hour, source, country): `impressions`, `clicks` and
 *    `revenue_micros`; one view from `delivery_events` (in-house: source
 *    `inhouse`, revenue = the spend charged to the advertiser) and one from
 *    `dsp_delivery_events` (source = the DSP's id, revenue = what the DSP owes,
 *    verified against the auction log by the exporter).
 *  - `publisher_fill_formats`: one row per filled auction (publisher, UTC day,
 *    auction id, format), so that deliveries, which carry no format, can be
 *    reported by the format of their auction (group_by=format). Dropped with
 *    the raw delivery rows by the retention job.
 *  - `publisher_topics_hourly`: SummingMergeTree of the auction log per
 *    (publisher, UTC hour, test, category, language, no-fill reason):
 *    `requests` and `filled`. `category` is the auction's first tier-1 IAB
 *    Content Taxonomy 3.0 id (its log's `categories` hold ours best first, then
 *    the safety screen's), `language` the logged ISO 639-1 code; '' for none.
 *    Both come from closed sets (the taxonomy's tier-1 ids, two letters), so
 *    the rollup stays as small as the one above. A table of its own: the
 *    other's sort key cannot grow, and crossing these keys with its five would
 *    multiply its rows.
 *  - `publisher_fill_topics`: one row per filled auction (publisher, UTC day,
 *    auction id, category, language), for deliveries by category or language
 *    as `publisher_fill_formats` is for format. Dropped with the raw delivery
 *    rows by the retention job.
 *
 * Rollups are never dropped; rows of the same key are summed at merge time, so
 * every read sums (GROUP BY) again.
 */
export const REPORT_TABLES = {
  auctions: 'publisher_auctions_hourly',
  delivery: 'publisher_delivery_hourly',
  fillFormats: 'publisher_fill_formats',
  deliveryEvents: 'publisher_delivery_events',
  topics: 'publisher_topics_hourly',
  fillTopics: 'publisher_fill_topics',
} as const;

const HOUR_OF = "toStartOfHour(toDateTime(event_time, 'UTC'))";

/** The auction's first tier-1 Content Taxonomy id among its logged categories, '' when it has none. */
function firstTier1Category(): string {
  const tier1 = contentTaxonomy()
    .filter((c) => c.tier === 1)
    .map((c) => c.id);
  return `arrayFirst(c -> has(${sql`${tier1}`}, c), categories)`;
}

/**
 * A SummingMergeTree per publisher and UTC hour: its `keys` (name -> type) sort
 * it after those two, and `sums` (of one type) are what it adds up.
 */
function publisherHourly(table: string, keys: Record<string, string>, sums: string[], sumType: string): string {
  const columns = [['publisher_id', 'String'], ['hour', "DateTime('UTC')"], ...Object.entries(keys), ...sums.map((sum) => [sum, sumType])];
  return createTable(table, columns.map(([name, type]) => `\n       ${name} ${type}`).join(','), {
    engine: `SummingMergeTree((${sums.join(', ')}))`,
    partitionBy: 'toYYYYMM(hour)',
    orderBy: ['publisher_id', 'hour', ...Object.keys(keys)].join(', '),
  });
}

function auctionRollup(db: string): string[] {
  const t = `${db}.${REPORT_TABLES.auctions}`;
  return [
    publisherHourly(t, { test: 'UInt8', source: 'String', format: 'String', country: 'String', no_fill_reason: 'String' }, ['requests', 'filled'], 'UInt64'),
    // The auction log's no_fill_reason is '' on a fill (auction/log/writer.ts).
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_mv TO ${t} AS
     SELECT publisher_id, ${HOUR_OF} AS hour, test, winner_bidder AS source, format, country, no_fill_reason, count() AS requests, sum(filled) AS filled
     FROM ${db}.${AUCTION_LOG_TABLES.auctions}
     GROUP BY publisher_id, hour, test, source, format, country, no_fill_reason`,
  ];
}

function deliveryRollup(db: string): string[] {
  const t = `${db}.${REPORT_TABLES.delivery}`;
  return [
    publisherHourly(t, { source: 'String', country: 'String' }, ['impressions', 'clicks', 'revenue_micros'], 'Int64'),
    // Own supply only; ClickHouse resolves `source` in WHERE to the alias, so the filter is on the group (HAVING).
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_inhouse_mv TO ${t} AS
     SELECT publisher_id, ${HOUR_OF} AS hour, if(source = 'own', 'inhouse', source) AS source, country,
            sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS revenue_micros
     FROM ${db}.${DELIVERY_TABLES.rows}
     GROUP BY publisher_id, hour, source, country
     HAVING source = 'inhouse'`,
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_dsp_mv TO ${t} AS
     SELECT publisher_id, ${HOUR_OF} AS hour, dsp_id AS source, country,
            sum(impressions) AS impressions, sum(clicks) AS clicks, sum(revenue_micros) AS revenue_micros
     FROM ${db}.${DELIVERY_TABLES.dspRows}
     GROUP BY publisher_id, hour, source, country`,
  ];
}

function fillFormats(db: string): string[] {
  const t = `${db}.${REPORT_TABLES.fillFormats}`;
  return [
    createTable(
      t,
      `
       publisher_id String,
       day Date,
       auction_id String,
       format String`,
      { engine: 'MergeTree()', partitionBy: 'toYYYYMM(day)', orderBy: 'publisher_id, day, auction_id' },
    ),
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_mv TO ${t} AS
     SELECT publisher_id, toDate(toDateTime(event_time, 'UTC')) AS day, auction_id, format
     FROM ${db}.${AUCTION_LOG_TABLES.auctions}
     WHERE filled = 1`,
  ];
}

function topicsRollup(db: string): string[] {
  const t = `${db}.${REPORT_TABLES.topics}`;
  return [
    publisherHourly(t, { test: 'UInt8', category: 'String', language: 'String', no_fill_reason: 'String' }, ['requests', 'filled'], 'UInt64'),
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_mv TO ${t} AS
     SELECT publisher_id, ${HOUR_OF} AS hour, test, ${firstTier1Category()} AS category, language, no_fill_reason, count() AS requests, sum(filled) AS filled
     FROM ${db}.${AUCTION_LOG_TABLES.auctions}
     GROUP BY publisher_id, hour, test, category, language, no_fill_reason`,
  ];
}

function fillTopics(db: string): string[] {
  const t = `${db}.${REPORT_TABLES.fillTopics}`;
  return [
    createTable(
      t,
      `
       publisher_id String,
       day Date,
       auction_id String,
       category String,
       language String`,
      { engine: 'MergeTree()', partitionBy: 'toYYYYMM(day)', orderBy: 'publisher_id, day, auction_id' },
    ),
    `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_mv TO ${t} AS
     SELECT publisher_id, toDate(toDateTime(event_time, 'UTC')) AS day, auction_id, ${firstTier1Category()} AS category, language
     FROM ${db}.${AUCTION_LOG_TABLES.auctions}
     WHERE filled = 1`,
  ];
}

export function publisherReportTables(database: string): string[] {
  const db = identifier(database);
  return [...auctionRollup(db), ...deliveryRollup(db), ...fillFormats(db), ...topicsRollup(db), ...fillTopics(db)];
}

/**
 * `publisher_delivery_events`: the delivery rows again, sorted by publisher (the
 * raw tables are sorted by organization or DSP), narrowed to what a report by
 * format needs: per event its source (`inhouse` or the DSP's id), auction,
 * impressions, clicks and revenue (the spend charged, or what the DSP owes). A
 * report by format reads the publisher's rows only and joins them to
 * `publisher_fill_formats`. Its views copy rows inserted from its creation on;
 * the rows from before are copied in once when it is created. A row both ways
 * (inserted while it was being created) has one key (source, event_id):
 * ReplacingMergeTree folds it at merge time and reads take each event once
 * (auction/reports/report.ts). Dropped with the raw delivery rows by retention.
 */
export async function createPublisherDeliveryEvents(ch: ClickHouseClient, database: string): Promise<void> {
  const db = identifier(database);
  const t = `${db}.${REPORT_TABLES.deliveryEvents}`;
  // Its last view is made just before the copy: a migrate cut short before it runs it all again (a row copied twice is read once).
  const lastView = `${REPORT_TABLES.deliveryEvents}_dsp_mv`;
  const exists = await (
    await ch.query({ query: `SELECT name FROM system.tables WHERE ${sql`database = ${database} AND name = ${lastView}`}`, format: 'JSONEachRow' })
  ).json<{ name: string }>();
  if (exists.length > 0) return;
  // Own supply only; ClickHouse resolves `source` in WHERE to the alias, so the filter is on the group (HAVING), as in deliveryRollup.
  const inhouse = `SELECT publisher_id, event_time, if(source = 'own', 'inhouse', source) AS source, event_id, auction_id,
            sum(impressions) AS impressions, sum(clicks) AS clicks, sum(spend_micros) AS revenue_micros
     FROM ${db}.${DELIVERY_TABLES.rows}
     GROUP BY publisher_id, event_time, source, event_id, auction_id
     HAVING source = 'inhouse'`;
  const dsp = `SELECT publisher_id, event_time, dsp_id AS source, event_id, auction_id, impressions, clicks, revenue_micros
     FROM ${db}.${DELIVERY_TABLES.dspRows}`;
  await ch.command({
    query: createTable(
      t,
      `
       publisher_id String,
       event_time DateTime('UTC'),
       source String,
       event_id String,
       auction_id String,
       impressions Int64,
       clicks Int64,
       revenue_micros Int64`,
      { engine: 'ReplacingMergeTree()', partitionBy: 'toYYYYMM(event_time)', orderBy: 'publisher_id, event_time, source, event_id' },
    ),
  });
  await ch.command({ query: `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_inhouse_mv TO ${t} AS ${inhouse}` });
  await ch.command({ query: `CREATE MATERIALIZED VIEW IF NOT EXISTS ${t}_dsp_mv TO ${t} AS ${dsp}` });
  for (const backfill of [inhouse, dsp]) await ch.command({ query: `INSERT INTO ${t} ${backfill}` });
}
