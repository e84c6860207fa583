import { config } from '../lib/config';
import { exportHeldImpressions, exportLedgerBatch, type ExportOptions } from './delivery-exporter';
import { defineJob } from './job';

/** The export's settings, from the configuration. */
export const exportOptions = (heartbeat?: () => void): ExportOptions => ({
  viewTokenTtlSeconds: config.delivery.viewTokenTtlSeconds,
  revenueGraceSeconds: config.delivery.dspRevenueGraceSeconds,
  heartbeat,
});

/**
 * Committed ledger rows -> ClickHouse by a cursor, exactly once
 * (jobs/delivery-exporter.ts), about once a second: each insert feeds four
 * rollups, so fewer, larger inserts cost ClickHouse far less. After the ledger,
 * the DSP impressions held for their auction's record (domain/delivery/dsp-revenue.ts).
 */
export const deliveryExportJob = defineJob({
  name: 'delivery-export',
  restMs: config.delivery.exportIntervalMs,
  async run({ pool, clickhouse, database, heartbeat }) {
    const batch = config.delivery.exportBatch;
    const exported = await exportLedgerBatch(pool, clickhouse, database, batch, exportOptions(heartbeat));
    if (exported === batch) return { items: exported, more: true };
    return { items: exported + (await exportHeldImpressions(pool, clickhouse, database, exportOptions(heartbeat))), more: false };
  },
});
