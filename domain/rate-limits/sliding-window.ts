import { plainPoolOf, utcTimestamp, type Db } from '../../lib/db';
import { RateLimitError } from '../../lib/errors';

/** The budget's window: an hour. */
export const WINDOW_MS = 60 * 60 * 1000;

export interface RateLimitVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the budget is whole again (end of the current window). */
  resetAt: number;
  retryAfterSeconds: number;
}

/**
 * Sliding-window rate limit over hourly counters in PostgreSQL, so every api
 * process shares one count. The estimate weights the previous window by the part
 * of it still inside the last hour (the "sliding window counter" approach), which
 * avoids the double burst of plain fixed windows. A rejected request is not
 * counted, so a throttled client recovers on schedule. `cost` counts several
 * units at once (event collection reserves its event budget in chunks).
 */
export async function consume(db: Db, bucket: string, limit: number, now = Date.now(), cost = 1): Promise<RateLimitVerdict> {
  const windowStart = Math.floor(now / WINDOW_MS) * WINDOW_MS;
  const elapsed = (now - windowStart) / WINDOW_MS;
  // On the plain pool: every request runs this (lib/db.ts plainPoolOf).
  const pool = plainPoolOf(db);
  const { rows } = await pool.query<{ current: number; previous: number }>(
    `WITH cur AS (
       INSERT INTO rate_limit_counters (bucket, window_start, count)
       VALUES ($1, $2::timestamp, $3::int)
       ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + $3::int
       RETURNING count
     )
     SELECT cur.count AS current,
            COALESCE((SELECT count FROM rate_limit_counters WHERE bucket = $1 AND window_start = $4::timestamp), 0) AS previous
       FROM cur`,
    [bucket, utcTimestamp(windowStart), cost, utcTimestamp(windowStart - WINDOW_MS)],
  );
  const { current, previous } = rows[0];
  const estimate = Math.floor(previous * (1 - elapsed)) + current;
  const resetAt = Math.ceil((windowStart + WINDOW_MS) / 1000);
  if (estimate <= limit) {
    return { allowed: true, limit, remaining: limit - estimate, resetAt, retryAfterSeconds: 0 };
  }
  await pool.query('UPDATE rate_limit_counters SET count = count - $3::int WHERE bucket = $1 AND window_start = $2::timestamp', [
    bucket,
    utcTimestamp(windowStart),
    cost,
  ]);
  // When the previous window's weight will have decayed enough for one more request.
  const excess = estimate - limit;
  const secondsUntilFree = previous > 0 ? Math.ceil(((excess / previous) * WINDOW_MS) / 1000) : Math.ceil((windowStart + WINDOW_MS - now) / 1000);
  const retryAfterSeconds = Math.max(1, Math.min(secondsUntilFree, Math.ceil((windowStart + WINDOW_MS - now) / 1000)));
  return { allowed: false, limit, remaining: 0, resetAt, retryAfterSeconds };
}

/** Drops counters no estimate can read any more (older than two windows). */
export async function pruneCounters(db: Db, now = Date.now()): Promise<void> {
  await db.$executeRaw`DELETE FROM rate_limit_counters WHERE window_start < ${new Date(now - 2 * WINDOW_MS)}`;
}

/** Consumes one unit of `bucket`; over the budget it throws `rate_limit_exceeded` carrying its Retry-After. */
export async function consumeOrThrow(db: Db, bucket: string, limit: number, message: string): Promise<RateLimitVerdict> {
  const verdict = await consume(db, bucket, limit);
  if (!verdict.allowed) throw throttled(verdict, message);
  return verdict;
}

/** The 429 of a verdict that did not allow the request. */
export const throttled = (verdict: RateLimitVerdict, message?: string) => new RateLimitError(verdict.retryAfterSeconds, message, verdict);
