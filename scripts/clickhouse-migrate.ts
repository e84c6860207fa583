/** Applies the ClickHouse schema (idempotent: every statement is IF NOT EXISTS). */
import { applyClickhouseSchema } from '../lib/clickhouse/schema';

applyClickhouseSchema()
  .then(() => process.exit(0))
  .catch((err) => {
    console.error(`clickhouse schema failed: ${err.message}`);
    process.exit(1);
  });
