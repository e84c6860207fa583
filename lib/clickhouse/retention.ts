import type { ClickHouseClient } from '@clickhouse/client';
import { identifier, sql } from './sql';

/**
 * Time to live of a ClickHouse table partitioned by month (`toYYYYMM(...)`),
 * in a form ClickHouse 18.16 runs (its MergeTree has no TTL clause): a month's
 * partition is dropped once the whole month is older than `retentionDays`, so
 * a row lives at least that long and at most a month more. Returns the
 * partitions it dropped.
 */
export async function dropExpiredPartitions(ch: ClickHouseClient, database: string, table: string, retentionDays: number, now = Date.now()): Promise<string[]> {
  const cutoff = now - retentionDays * 86_400_000;
  const result = await ch.query({
    query: sql`SELECT DISTINCT partition FROM system.parts WHERE database = ${database} AND table = ${table} AND active`,
    format: 'JSONEachRow',
  });
  const dropped: string[] = [];
  for (const { partition } of await result.json<{ partition: string }>()) {
    const month = /^(\d{4})(\d{2})$/.exec(partition);
    if (!month) continue; // not a monthly partition: not ours to drop
    const monthEnd = Date.UTC(Number(month[1]), Number(month[2]), 1); // the first instant of the next month
    if (monthEnd > cutoff) continue;
    await ch.command({ query: `ALTER TABLE ${identifier(database)}.${identifier(table)} DROP PARTITION ${partition}` });
    dropped.push(partition);
  }
  return dropped;
}
