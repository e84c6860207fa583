import type { ClickHouseClient } from '@clickhouse/client';
import type { Pool } from 'pg';
import type { BackgroundLoop } from '../../lib/background-loop';
import { config } from '../../lib/config';
import { closeWithin } from '../../lib/deadline';
import { startCallbackForwarder, feedbackCallbackOf } from './dsp-callbacks';
import { startLedgerExporter } from './exporter';
import { createDeliveryLedger, type DeliveryLedgerWriter } from './ledger';

/**
 * Delivery tracking as one api process runs it: the ledger the trackers write
 * through, the exporter that moves committed rows to ClickHouse and the
 * forwarder that owes DSPs their feedback. `close()` (after the HTTP server
 * stopped taking requests) exports what is committed before the pool ends,
 * so a normal stop loses nothing; a killed process leaves it for the next.
 */
export interface DeliveryTracker {
  ledger: DeliveryLedgerWriter;
  exporter: BackgroundLoop;
  forwarder: BackgroundLoop;
  close(): Promise<void>;
}

/** Takes ownership of `pool` and `clickhouse`: close() ends both. */
export function startDeliveryTracker(deps: {
  pool: Pool;
  clickhouse: ClickHouseClient;
  clickhouseDatabase: string;
  /** Campaigns a charge just exhausted (the lifecycle workflow completes them). */
  onBudgetExhausted?: (campaignIds: string[]) => void;
  intervalMs?: number;
}): DeliveryTracker {
  const d = config.delivery;
  const ledger = createDeliveryLedger(deps.pool, { onBudgetExhausted: deps.onBudgetExhausted, feedbackCallback: feedbackCallbackOf });
  const exporter = startLedgerExporter(deps.pool, deps.clickhouse, deps.clickhouseDatabase, {
    batch: d.exportBatch, intervalMs: deps.intervalMs ?? d.exportIntervalMs, tokenTtlSeconds: d.trackingTokenTtlSeconds,
  });
  const forwarder = startCallbackForwarder(deps.pool, {
    maxAttempts: d.callbackMaxAttempts, timeoutMs: config.timeouts.dspCallbackMs, intervalMs: deps.intervalMs ?? 1000,
  });
  return {
    ledger,
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
