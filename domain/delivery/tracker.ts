import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import type { BackgroundLoop } from '../../lib/background-loop';
import { config } from '../../lib/config';
import { closeWithin } from '../../lib/deadline';
import { startCallbackForwarder, feedbackCallbackOf } from './dsp-callbacks';
import { startLedgerExporter, type ExportOptions } from './exporter';
import { createDeliveryLedger, type DeliveryLedgerWriter } from './ledger';

/**
 * Delivery tracking's two halves, in the processes that run them:
 *
 * - the api's trackers write through the ledger (`startDeliveryLedger`), and
 *   answer once their event is committed;
 * - the worker moves committed rows to ClickHouse and owes DSPs their feedback
 *   (`startDeliveryBackground`). Kept out of the api: turning a second's ledger
 *   rows into a ClickHouse insert is synchronous work (result parsing, row
 *   mapping, JSON) that held the api's event loop, and so its pixels, for tens
 *   of milliseconds every second.
 *
 * Each `close()` (after the owner stopped taking work) lets what is in flight
 * finish: the ledger's pool, or a last export of what is committed, so a normal
 * stop loses nothing; a killed worker leaves the rows for the next one.
 */
export interface DeliveryLedgerProcess {
  ledger: DeliveryLedgerWriter;
  close(): Promise<void>;
}

/** Takes ownership of `pool`: close() ends it. */
export function startDeliveryLedger(deps: {
  pool: Pool;
  /** Campaigns a charge just exhausted (the lifecycle workflow completes them). */
  onBudgetExhausted?: (campaignIds: string[]) => void;
}): DeliveryLedgerProcess {
  const ledger = createDeliveryLedger(deps.pool, {
    onBudgetExhausted: deps.onBudgetExhausted, feedbackCallback: feedbackCallbackOf, minFlushSpacingMs: config.delivery.ledgerFlushSpacingMs,
  });
  return {
    ledger,
    close: () => closeWithin(config.timeouts.closeMs, 'delivery ledger pool', () => deps.pool.end()),
  };
}

/** The export's settings, from the configuration. */
export const exportOptions = (): ExportOptions => ({
  viewTokenTtlSeconds: config.delivery.viewTokenTtlSeconds, revenueGraceSeconds: config.delivery.dspRevenueGraceSeconds,
});

export interface DeliveryBackground {
  exporter: BackgroundLoop;
  forwarder: BackgroundLoop;
  close(): Promise<void>;
}

/** Takes ownership of `pool` and `clickhouse`: close() ends both. */
export function startDeliveryBackground(deps: {
  pool: Pool;
  clickhouse: ClickHouseClient;
  clickhouseDatabase: string;
  intervalMs?: number;
}): DeliveryBackground {
  const d = config.delivery;
  const exporter = startLedgerExporter(deps.pool, deps.clickhouse, deps.clickhouseDatabase, {
    ...exportOptions(), batch: d.exportBatch, intervalMs: deps.intervalMs ?? d.exportIntervalMs, tokenTtlSeconds: Math.max(d.viewTokenTtlSeconds, d.clickTokenTtlSeconds),
  });
  const forwarder = startCallbackForwarder(deps.pool, {
    maxAttempts: d.callbackMaxAttempts, timeoutMs: config.timeouts.dspCallbackMs, intervalMs: deps.intervalMs ?? 1000,
  });
  return {
    exporter,
    forwarder,
    async close() {
      const ms = config.timeouts.closeMs;
      await closeWithin(ms, 'dsp callback forwarder', () => forwarder.stop());
      await closeWithin(ms, 'delivery export', async () => { await exporter.stop(); await exporter.runNow(); });
      await closeWithin(ms, 'delivery pool', () => deps.pool.end());
      await closeWithin(ms, 'delivery clickhouse client', () => deps.clickhouse.close());
    },
  };
}
