/** lib/clickhouse/sql.ts without a server (clickhouse-sql.test.ts runs every literal kind through ClickHouse). */
import { literal } from '../lib/clickhouse/sql';

test('non-finite numbers are refused', () => {
  expect(() => literal(Number.NaN)).toThrow();
  expect(() => literal(Number.POSITIVE_INFINITY)).toThrow();
});
