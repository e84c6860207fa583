import { identifier } from '../../lib/clickhouse/sql';
import { createTable, type AddedColumn } from '../../lib/clickhouse/schema';

/**
 * ClickHouse tables of the auction log (ClickHouse 18.16 syntax): one row per
 * auction and one per bidder per auction. Written in batches by
 * auction/log/writer.ts, read by `adctl dsp report` and delivery tracking.
 */
/** The auction log's tables (domain/delivery/dsp-revenue.ts reads `auctions` by the same name). */
export const AUCTION_LOG_TABLES = { auctions: 'auctions', bids: 'auction_bids' } as const;

/** Columns the auctions table gained after it was first created (scripts/clickhouse-migrate.ts adds them). */
export const AUCTION_LOG_ADDED_COLUMNS: AddedColumn[] = [
  { table: AUCTION_LOG_TABLES.auctions, column: 'no_fill_reason', type: "String DEFAULT ''" },
  { table: AUCTION_LOG_TABLES.auctions, column: 'test', type: 'UInt8 DEFAULT 0' },
  // A sandbox publisher's bid rows: kept for debugging, left out of `adctl dsp report`.
  { table: AUCTION_LOG_TABLES.bids, column: 'test', type: 'UInt8 DEFAULT 0' },
  // The served in-house ad's relevance to the conversation (domain/relevance/score.ts); the writer puts -1 for a DSP's ad,
  // an opener or no fill (no DEFAULT: the two ClickHouse versions spell a negative default differently).
  { table: AUCTION_LOG_TABLES.auctions, column: 'winner_relevance', type: 'Float32' },
  // What the conversation was about (auction/signals.ts): content categories (IAB CT 3.0 ids, the safety screen's too) and
  // the language sent as device.language, so publisher reports can group by them.
  { table: AUCTION_LOG_TABLES.auctions, column: 'categories', type: 'Array(String)' },
  { table: AUCTION_LOG_TABLES.auctions, column: 'language', type: "String DEFAULT ''" },
];

export function auctionTables(database: string): string[] {
  const db = identifier(database);
  return [
    createTable(
      `${db}.${AUCTION_LOG_TABLES.auctions}`,
      `
       auction_id String,
       event_time DateTime,
       publisher_id String,
       request_type String,
       country String,
       device String,
       ad_formats Array(String),
       tmax_ms UInt32,
       bidders UInt16,
       valid_bids UInt16,
       filled UInt8,
       winner_bidder String,
       winner_bid_id String,
       winner_ad_id String,
       winner_campaign_id String,
       format String,
       price_micros Int64,
       latency_ms Float64,
       no_fill_reason String DEFAULT '',
       test UInt8 DEFAULT 0,
       winner_relevance Float32,
       categories Array(String),
       language String DEFAULT ''`,
      { engine: 'MergeTree()', partitionBy: 'toYYYYMM(event_time)', orderBy: 'event_time, auction_id' },
    ),
    createTable(
      `${db}.${AUCTION_LOG_TABLES.bids}`,
      `
       auction_id String,
       event_time DateTime,
       bidder_id String,
       bidder_name String,
       bidder_kind String,
       bid_id String,
       price_micros Int64,
       outcome String,
       reason String,
       seat_non_bid_code Int32,
       detail String,
       latency_ms Float64,
       ad_id String,
       campaign_id String,
       test UInt8 DEFAULT 0`,
      { engine: 'MergeTree()', partitionBy: 'toYYYYMM(event_time)', orderBy: 'bidder_id, event_time, auction_id' },
    ),
  ];
}
