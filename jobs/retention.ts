import type { ClickHouseClient } from '@clickhouse/client';
import { config } from '../lib/config';
import type { Pool } from 'pg';
import type { Db } from '../lib/db';
import { dropExpiredPartitions } from '../lib/clickhouse/retention';
import { COLLECTED_EVENTS_TABLE } from '../domain/events/clickhouse-tables';
import { pruneCollectedEventIds } from '../domain/events/event-ids';
import { DELIVERY_TABLES } from '../domain/delivery/clickhouse-tables';
import { AUCTION_LOG_TABLES } from '../auction/log/clickhouse-tables';
import { REPORT_TABLES } from '../auction/reports/clickhouse-tables';
import { INHOUSE_STATS_TABLE } from '../domain/serving/traffic';
import { pruneLedger } from './delivery-exporter';
import { pruneDeadLetters } from '../domain/dead-letters/store';
import { pruneParkedCallbacks } from '../domain/delivery/dsp-callbacks';
import { pruneExpiredSessions } from '../domain/dashboard/sessions';
import { pruneAbandonedIdempotencyRecords } from '../domain/idempotency/records';
import { pruneCounters } from '../domain/rate-limits/sliding-window';
import { pruneFrequencyEvents } from '../domain/serving/frequency-events';
import { pruneWebhookEvents, WEBHOOK_LOG_DAYS } from '../domain/webhooks/delivery';
import { EXPORT_KEEP_DAYS, pruneReportExports } from '../domain/insights/exports';
import { defineJob } from './job';

/**
 * Retention (docs/api-behaviour.md, "Personal data and retention"; the schedules and their
 * row counts: docs/deploy.md, "Retention"): raw ClickHouse tables lose the months past their
 * time to live; PostgreSQL loses ledger rows no token can name any more, event ids past the
 * dedupe window, expired rate-limit counters, frequency events past every window, old dead
 * letters and parked DSP callbacks, expired dashboard sessions and sign-in links, and
 * idempotency records of requests that never completed. Rollups are kept, and so are completed
 * idempotency records (replayed with no expiry). Hourly, the first an hour after the job starts.
 */
export function rawTableRetention(): { table: string; days: number }[] {
  const r = config.retention;
  return [
    { table: COLLECTED_EVENTS_TABLE, days: r.eventsDays },
    { table: DELIVERY_TABLES.rows, days: r.deliveriesDays },
    { table: DELIVERY_TABLES.dspRows, days: r.deliveriesDays },
    // Each fill's format, category and language, for the deliveries above by them (publisher reports): kept as long as they are.
    { table: REPORT_TABLES.fillFormats, days: r.deliveriesDays },
    { table: REPORT_TABLES.fillTopics, days: r.deliveriesDays },
    { table: REPORT_TABLES.deliveryEvents, days: r.deliveriesDays },
    { table: AUCTION_LOG_TABLES.auctions, days: r.auctionLogDays },
    { table: AUCTION_LOG_TABLES.bids, days: r.auctionLogDays },
    { table: INHOUSE_STATS_TABLE, days: r.auctionLogDays },
  ];
}

/** Beyond a view token's lifetime before its impression's ledger row goes: clocks that disagree, an export that lags. */
export const IMPRESSION_PRUNE_MARGIN_SECONDS = 3_600;

/**
 * Ledger rows no token can name: impressions past the view token's lifetime (+ 1 hour), every
 * row past the longest token lifetime (+ 1 day, clicks and feedback). How many went.
 */
export async function pruneDeliveryLedger(pool: Pool): Promise<number> {
  const d = config.delivery;
  const impressions = await pruneLedger(pool, d.viewTokenTtlSeconds, { eventType: 'impression', marginSeconds: IMPRESSION_PRUNE_MARGIN_SECONDS });
  return impressions + (await pruneLedger(pool, Math.max(d.viewTokenTtlSeconds, d.clickTokenTtlSeconds)));
}

/**
 * Frequency events outlive no window they count in (an hour's margin on top): an impression counts
 * for a day, a win only until its view pixel would have fired (FREQUENCY_PROVISIONAL_SECONDS). How many went.
 */
export async function pruneShownEvents(pool: Pool, now = Date.now()): Promise<number> {
  const margin = 3_600_000;
  const impressions = await pruneFrequencyEvents(pool, now - 86_400_000 - margin);
  return impressions + (await pruneFrequencyEvents(pool, now - config.frequency.provisionalSeconds * 1000 - margin, 'win'));
}

/** A request with an Idempotency-Key that has not completed in a day never will (a campaign create gives up after 25 s). */
export const ABANDONED_IDEMPOTENCY_MS = 86_400_000;

/** PostgreSQL rows set aside or expired (over the Prisma client): how many went, per table. */
export async function prunePostgresRows(db: Db, now = Date.now()): Promise<Record<string, number>> {
  const days = config.retention.deadLettersDays;
  return {
    dead_letters: await pruneDeadLetters(db, days, now),
    // Parked calls are set aside for an operator like dead letters, and kept as long.
    dsp_callbacks: await pruneParkedCallbacks(db, days, now),
    idempotency_records: await pruneAbandonedIdempotencyRecords(db, ABANDONED_IDEMPOTENCY_MS, now),
    dashboard_sessions: await pruneExpiredSessions(db, new Date(now)),
    webhook_events: await pruneWebhookEvents(db, WEBHOOK_LOG_DAYS, now),
    report_exports: await pruneReportExports(db, EXPORT_KEEP_DAYS, now),
  };
}

/** The raw tables' expired months dropped, and the PostgreSQL rows above deleted: what was dropped, per table. */
export async function applyRetention(db: Db, ch: ClickHouseClient, database: string, tables = rawTableRetention()): Promise<Record<string, string[]>> {
  const dropped: Record<string, string[]> = {};
  for (const { table, days } of tables) dropped[table] = await dropExpiredPartitions(ch, database, table, days);
  await prunePostgresRows(db);
  return dropped;
}

export const retentionJob = defineJob({
  name: 'retention',
  restMs: 3_600_000,
  restFirst: true,
  async run({ db, pool, clickhouse, database }) {
    const dropped = await applyRetention(db, clickhouse, database);
    const ledger = await pruneDeliveryLedger(pool);
    const eventIds = await pruneCollectedEventIds(db, config.events.dedupeWindowDays);
    await pruneCounters(db);
    const shown = await pruneShownEvents(pool);
    return { items: Object.values(dropped).flat().length + ledger + eventIds + shown, more: false };
  },
});
