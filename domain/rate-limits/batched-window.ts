import { plainPoolOf, utcTimestamp, type Db } from '../../lib/db';
import type { RateLimitVerdict } from './sliding-window';

/**
 * A short-window rate limit shared by every copy of a service without a
 * database round trip per request. The counting rule is sliding-window.ts's
 * (the previous window weighted by the part of it still inside the last
 * window, over counters in the same `rate_limit_counters` table), but each
 * copy decides locally: the shared counts as of its last sync plus what it
 * admitted since. Every `syncMs` it adds those to the shared counters in one
 * statement and reads back every copy's. Between two syncs the copies do not
 * see each other's new requests: together they may admit up to about
 * (copies - 1) x limit x syncMs / windowMs more than the limit in a window.
 * A failed sync leaves each copy counting alone until the next succeeds.
 */
export interface BatchedWindowOptions {
  windowMs: number;
  syncMs: number;
  /** Test-only: a fixed clock (admissions and syncs alike). */
  clock?: () => number;
}

interface KeyState {
  /** Every copy's count per window start, as last read (own flushed requests included). */
  shared: Map<number, number>;
  /** This copy's requests per window start not yet added to the shared counters. */
  pending: Map<number, number>;
  lastSeen: number;
}

const PRUNE_EVERY_MS = 30_000;

export class BatchedWindowLimiter {
  private readonly keys = new Map<string, KeyState>();
  private timer: NodeJS.Timeout | undefined;
  private syncing: Promise<void> | undefined;
  private failing = false;
  private prunedAt = 0;

  constructor(
    private readonly db: Db,
    private readonly options: BatchedWindowOptions,
  ) {}

  private now(): number {
    return this.options.clock?.() ?? Date.now();
  }

  /** Admits one request of `key` (counted) or refuses it (not counted). */
  admit(key: string, limit: number, now = this.now()): RateLimitVerdict {
    const { windowMs } = this.options;
    const windowStart = Math.floor(now / windowMs) * windowMs;
    let state = this.keys.get(key);
    if (!state) this.keys.set(key, (state = { shared: new Map(), pending: new Map(), lastSeen: now }));
    state.lastSeen = now;
    const count = (w: number) => (state.shared.get(w) ?? 0) + (state.pending.get(w) ?? 0);
    const previous = count(windowStart - windowMs);
    const estimate = Math.floor(previous * (1 - (now - windowStart) / windowMs)) + count(windowStart);
    const resetAt = Math.ceil((windowStart + windowMs) / 1000);
    if (estimate + 1 <= limit) {
      state.pending.set(windowStart, (state.pending.get(windowStart) ?? 0) + 1);
      return { allowed: true, limit, remaining: limit - estimate - 1, resetAt, retryAfterSeconds: 0 };
    }
    return { allowed: false, limit, remaining: 0, resetAt, retryAfterSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000)) };
  }

  start(): void {
    this.timer = setInterval(() => void this.sync(), this.options.syncMs);
    this.timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.syncing;
  }

  /** Adds this copy's pending counts to the shared counters and reads every copy's (one statement); one at a time. */
  sync(now = this.now()): Promise<void> {
    this.syncing ??= this.syncOnce(now).finally(() => (this.syncing = undefined));
    return this.syncing;
  }

  private async syncOnce(now: number): Promise<void> {
    const { windowMs } = this.options;
    const current = Math.floor(now / windowMs) * windowMs;
    const rows: { key: string; state: KeyState; window: number; add: number }[] = [];
    for (const [key, state] of this.keys) {
      if (now - state.lastSeen > 2 * windowMs && state.pending.size === 0) {
        this.keys.delete(key);
        continue;
      }
      for (const w of [...state.shared.keys(), ...state.pending.keys()]) if (w < current - windowMs) state.shared.delete(w);
      for (const w of state.pending.keys()) if (w < current - windowMs) state.pending.delete(w);
      for (const w of [current - windowMs, current]) rows.push({ key, state, window: w, add: state.pending.get(w) ?? 0 });
    }
    if (rows.length === 0) return;
    try {
      const { rows: counts } = await plainPoolOf(this.db).query<{ i: string; count: number }>(
        `WITH input AS (
           SELECT * FROM unnest($1::text[], $2::timestamp[], $3::int[]) WITH ORDINALITY AS t(bucket, window_start, add, i)
         ), added AS (
           INSERT INTO rate_limit_counters (bucket, window_start, count)
           SELECT bucket, window_start, add FROM input WHERE add > 0
           ON CONFLICT (bucket, window_start) DO UPDATE SET count = rate_limit_counters.count + EXCLUDED.count
           RETURNING bucket, window_start, count
         )
         SELECT input.i, COALESCE(added.count, c.count, 0) AS count
           FROM input
           LEFT JOIN added ON added.bucket = input.bucket AND added.window_start = input.window_start
           LEFT JOIN rate_limit_counters c ON input.add = 0 AND c.bucket = input.bucket AND c.window_start = input.window_start`,
        [rows.map((r) => r.key), rows.map((r) => utcTimestamp(r.window)), rows.map((r) => r.add)],
      );
      for (const { i, count } of counts) {
        const row = rows[Number(i) - 1];
        row.state.shared.set(row.window, count);
        if (row.add > 0) {
          const left = (row.state.pending.get(row.window) ?? 0) - row.add;
          if (left > 0) row.state.pending.set(row.window, left);
          else row.state.pending.delete(row.window);
        }
      }
      this.failing = false;
      if (now - this.prunedAt >= PRUNE_EVERY_MS) {
        this.prunedAt = now;
        // Short windows make many rows: drop the ones no estimate reads any more (the api's hourly prune keeps two hours).
        await plainPoolOf(this.db).query('DELETE FROM rate_limit_counters WHERE bucket = ANY($1::text[]) AND window_start < $2::timestamp', [
          [...new Set(rows.map((r) => r.key))],
          utcTimestamp(current - windowMs),
        ]);
      }
    } catch (err) {
      // Logged once per outage; each copy keeps counting its own requests meanwhile.
      if (!this.failing) console.error(JSON.stringify({ level: 'warn', msg: 'rate limit sync failed', error: String(err) }));
      this.failing = true;
    }
  }
}
