/** Applies the ClickHouse schema (idempotent: every statement is IF NOT EXISTS). */
import { config } from '../lib/config';
import { addMissingColumns, applyClickhouseSchema, type TableFamily } from '../lib/clickhouse/schema';
import { createClickhouse } from '../lib/clickhouse/client';
import { DELIVERY_ADDED_COLUMNS, deliveryTables, invalidTrafficTables, retireLegacyDeliveryEvents } from '../domain/delivery/clickhouse-tables';
import { AUCTION_LOG_ADDED_COLUMNS, auctionTables } from '../auction/log/clickhouse-tables';
import { eventTables } from '../domain/events/clickhouse-tables';
import { SERVING_ADDED_COLUMNS, servingTables } from '../domain/serving/traffic';
import { createPublisherDeliveryEvents, publisherReportTables } from '../auction/reports/clickhouse-tables';

/** Every table family; each module keeps its DDL beside its queries. */
const families: TableFamily[] = [deliveryTables, auctionTables, eventTables, servingTables];

async function migrate() {
  // Older databases' placeholder delivery table is renamed aside first (18.16 cannot add columns idempotently).
  const ch = createClickhouse('default');
  try {
    await retireLegacyDeliveryEvents(ch, config.clickhouse.database);
  } finally {
    await ch.close();
  }
  await applyClickhouseSchema(config.clickhouse.database, families);
  await addMissingColumns(config.clickhouse.database, [...AUCTION_LOG_ADDED_COLUMNS, ...SERVING_ADDED_COLUMNS, ...DELIVERY_ADDED_COLUMNS]);
  // Their views read the added columns.
  await applyClickhouseSchema(config.clickhouse.database, [publisherReportTables, invalidTrafficTables]);
}

/** Created once with a backfill of the delivery rows before it (not a plain IF NOT EXISTS). */
async function reportTablesWithBackfill() {
  const ch = createClickhouse();
  try {
    await createPublisherDeliveryEvents(ch, config.clickhouse.database);
  } finally {
    await ch.close();
  }
}

migrate()
  .then(reportTablesWithBackfill)
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(`clickhouse schema failed: ${err.message}`);
    process.exit(1);
  });
