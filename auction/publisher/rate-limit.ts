import type { Db } from '../../lib/db';
import { BatchedWindowLimiter } from '../../domain/rate-limits/batched-window';
import { throttled } from '../../domain/rate-limits/sliding-window';
import type { PublisherRecord } from '../../domain/publishers';

/**
 * Each publisher key's rate limit on `POST /v1/ad_requests`: at most
 * `perSecond` requests a second (the publisher's own setting, else
 * AUCTION_PUBLISHER_RATE_LIMIT), shared by every copy of the auction through
 * the batched counters of domain/rate-limits/batched-window.ts, so the hot
 * path never waits on PostgreSQL. Checked right after the key, before the body
 * is read; over it, the spec's 429 `rate_limit_exceeded` with `Retry-After`.
 */
export interface PublisherRateLimitOptions {
  perSecond: number;
  windowMs: number;
  syncMs: number;
  /** Test-only: a fixed clock, so a test's requests fall in one window. */
  clock?: () => number;
  onLimited?: (publisher: PublisherRecord) => void;
}

export class PublisherRateLimit {
  readonly counters: BatchedWindowLimiter;

  constructor(
    db: Db,
    private readonly options: PublisherRateLimitOptions,
  ) {
    this.counters = new BatchedWindowLimiter(db, { windowMs: options.windowMs, syncMs: options.syncMs, clock: options.clock });
  }

  /** Counts one ad request of the publisher, or throws the 429. */
  admit(publisher: PublisherRecord): void {
    const perSecond = publisher.rateLimitPerSecond ?? this.options.perSecond;
    const limit = Math.max(1, Math.round((perSecond * this.options.windowMs) / 1000));
    const verdict = this.counters.admit(`ad_requests:${publisher.id}`, limit);
    if (verdict.allowed) return;
    this.options.onLimited?.(publisher);
    throw throttled(verdict);
  }

  start = () => this.counters.start();
  close = () => this.counters.close();
  /** Adds this copy's counts to the shared ones and reads every copy's now (tests; it runs every syncMs anyway). */
  sync = () => this.counters.sync();
}
