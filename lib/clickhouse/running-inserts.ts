import type { ClickHouseClient } from '@clickhouse/client';
import { sql } from './sql';

/**
 * How many inserts into any of `targets` are running; a target is the text
 * after `INSERT INTO` as its writer sends it (`table` or `database.table`). The
 * needle is built with concat, so that this query's own text does not match it.
 */
export const runningInsertsSql = (targets: string[]) =>
  `SELECT count() AS running FROM system.processes WHERE ${targets.map((t) => sql`positionCaseInsensitive(query, concat('INSERT INTO ', ${t})) > 0`).join(' OR ')}`;

/**
 * A writer killed mid-insert may have handed ClickHouse a complete batch that
 * it is still writing; its rows become visible only when that insert ends. A
 * recovering writer that holds the writers' lock (so any such insert still
 * running is a leftover) waits, at least `minWaitMs`, until none runs, and only
 * then looks up what arrived: looked up earlier, those rows would be sent twice.
 */
export async function deadInsertsSettled(
  ch: ClickHouseClient,
  targets: string[],
  options: { minWaitMs?: number; pollMs?: number; heartbeat?: () => void } = {},
): Promise<void> {
  const { minWaitMs = 1_000, pollMs = 100, heartbeat } = options;
  const since = Date.now();
  for (;;) {
    const result = await ch.query({ query: runningInsertsSql(targets), format: 'JSONEachRow' });
    const [{ running }] = await result.json<{ running: number }>();
    if (Number(running) === 0 && Date.now() - since >= minWaitMs) return;
    heartbeat?.();
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
