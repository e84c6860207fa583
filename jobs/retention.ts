import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../lib/config';
import type { Db } from '../lib/db';
import { dropExpiredPartitions } from '../lib/clickhouse/retention';
import { COLLECTED_EVENTS_TABLE } from '../domain/events/clickhouse-tables';
import { pruneCollectedEventIds } from '../domain/events/event-ids';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { AUCTION_LOG_TABLES } from '../auction/log/clickhouse-tables';
import { REPORT_TABLES } from '../auction/reports/clickhouse-tables';
import { INHOUSE_STATS_TABLE } from '../domain/serving/traffic';
import { pruneLedger } from '../domain/delivery/exporter';
import { pruneDeadLetters } from '../domain/dead-letters/store';
import { pruneCounters } from '../domain/rate-limits/sliding-window';
import { pruneFrequencyEvents } from '../domain/serving/frequency-events';
import { defineJob } from './job';

/**
 * Retention (docs/api-behaviour.md, "Personal data and retention"): raw ClickHouse tables lose
 * the months past their time to live; PostgreSQL loses ledger rows no token can
 * name any more, event ids past the dedupe window, expired rate-limit counters
 * and old dead letters. Rollups are kept. Hourly, the first an hour after the job starts.
 */
export function rawTableRetention(): { table: string; days: number }[] {
  const r = config.retention;
  return [
    { table: COLLECTED_EVENTS_TABLE, days: r.eventsDays },
    { table: DELIVERY_TABLES.rows, days: r.deliveriesDays },
    { table: DELIVERY_TABLES.dspRows, days: r.deliveriesDays },
    // Each fill's format, for the deliveries above by format (publisher reports): kept as long as they are.
    { table: REPORT_TABLES.fillFormats, days: r.deliveriesDays },
    { table: AUCTION_LOG_TABLES.auctions, days: r.auctionLogDays },
    { table: AUCTION_LOG_TABLES.bids, days: r.auctionLogDays },
    { table: INHOUSE_STATS_TABLE, days: r.auctionLogDays },
  ];
}

/** The raw tables' expired months dropped, and old dead letters deleted: what was dropped, per table. */
export async function applyRetention(db: Db, ch: ClickHouseClient, database: string, tables = rawTableRetention()): Promise<Record<string, string[]>> {
  const dropped: Record<string, string[]> = {};
  for (const { table, days } of tables) dropped[table] = await dropExpiredPartitions(ch, database, table, days);
  await pruneDeadLetters(db, config.retention.deadLettersDays);
  return dropped;
}

export const retentionJob = defineJob({
  name: 'retention',
  restMs: 3_600_000,
  restFirst: true,
  async run({ db, pool, clickhouse, database }) {
    const dropped = await applyRetention(db, clickhouse, database);
    const d = config.delivery;
    const ledger = await pruneLedger(pool, Math.max(d.viewTokenTtlSeconds, d.clickTokenTtlSeconds));
    const eventIds = await pruneCollectedEventIds(db, config.events.dedupeWindowDays);
    await pruneCounters(db);
    // Frequency counts outlive no window: a day's impressions, a few minutes' wins (a day's margin on top).
    const shown = await pruneFrequencyEvents(pool, Date.now() - 2 * 86_400_000);
    return { items: Object.values(dropped).flat().length + ledger + eventIds + shown, more: false };
  },
});
