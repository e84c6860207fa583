import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../lib/config';
import type { Db } from '../lib/db';
import { startBackgroundLoop, type BackgroundLoop } from '../lib/background-loop';
import { dropExpiredPartitions } from '../lib/clickhouse/retention';
import { COLLECTED_EVENTS_TABLE } from '../domain/events/clickhouse-tables';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { AUCTION_LOG_TABLES } from '../auction/log/clickhouse-tables';
import { pruneDeadLetters } from '../domain/dead-letters/store';

/**
 * Retention of raw data (README "Personal data and retention"): ClickHouse's raw
 * tables lose the months past their time to live, hourly, and dead letters
 * past theirs. Rollups (delivery_hourly, delivery_daily, ...) are kept.
 */
export function rawTableRetention(): { table: string; days: number }[] {
  const r = config.retention;
  return [
    { table: COLLECTED_EVENTS_TABLE, days: r.eventsDays },
    { table: DELIVERY_TABLES.rows, days: r.deliveriesDays },
    { table: DELIVERY_TABLES.dspRows, days: r.deliveriesDays },
    { table: AUCTION_LOG_TABLES.auctions, days: r.auctionLogDays },
    { table: AUCTION_LOG_TABLES.bids, days: r.auctionLogDays },
  ];
}

export async function applyRetention(db: Db, ch: ClickHouseClient, database: string, tables = rawTableRetention()): Promise<Record<string, string[]>> {
  const dropped: Record<string, string[]> = {};
  for (const { table, days } of tables) dropped[table] = await dropExpiredPartitions(ch, database, table, days);
  await pruneDeadLetters(db, config.retention.deadLettersDays);
  return dropped;
}

const HOURLY = 3_600_000;

/** The worker's retention job: every hour (the first an hour after start). */
export function startRetention(db: Db, ch: ClickHouseClient, database: string): BackgroundLoop {
  return startBackgroundLoop('retention', () => applyRetention(db, ch, database), HOURLY);
}
