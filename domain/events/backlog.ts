import type { Db } from '../../lib/db';

/**
 * The event pipeline's backlog (docs/operations.md, "Metrics"): accepted events
 * waiting in the inbox, and how long the oldest has waited (0 when none). Read
 * when the worker's metrics are scraped; the inbox is drained every second or
 * so, so the count stays small unless the pipeline is stuck.
 */
export async function eventInboxBacklog(db: Db): Promise<{ depth: number; oldestSeconds: number }> {
  const [row] = await db.$queryRaw<{ depth: bigint; oldest: number | null }[]>`
    SELECT count(*) AS depth,
           extract(epoch FROM (now() AT TIME ZONE 'UTC') - min(received_at))::float8 AS oldest
      FROM event_inbox`;
  return { depth: Number(row?.depth ?? 0), oldestSeconds: Math.max(0, row?.oldest ?? 0) };
}
