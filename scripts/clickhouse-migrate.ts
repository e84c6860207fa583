/** Applies the ClickHouse schema (idempotent: every statement is IF NOT EXISTS). */
import { config } from '../lib/config';
import { applyClickhouseSchema, type TableFamily } from '../lib/clickhouse/schema';
import { deliveryTables } from '../domain/delivery/clickhouse-tables';
import { auctionTables } from '../auction/log/clickhouse-tables';
import { eventTables } from '../domain/events/clickhouse-tables';

/** Every table family; each module keeps its DDL beside its queries. */
const families: TableFamily[] = [deliveryTables, auctionTables, eventTables];

applyClickhouseSchema(config.clickhouse.database, families)
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(`clickhouse schema failed: ${err.message}`);
    process.exit(1);
  });
