import type { ValidBid } from './types';

/**
 * Native bids waiting for their render call, by DSP and bidId, for about 60 s
 * (spec: a bid stays valid for rendering about 60 seconds). Expired entries are
 * swept lazily and on a timer; past `maxEntries` (DSPs choose how many bids they
 * send) the oldest are dropped first, and their render fails as expired.
 * A hold, not a cache (so not lru-cache): each bid is taken once, and expires on the caller's clock.
 */
export class BidCache {
  private readonly entries = new Map<string, { bid: ValidBid; expiresAt: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 100_000,
  ) {
    this.sweeper = setInterval(() => this.sweep(), Math.max(1000, ttlMs / 4));
    this.sweeper.unref();
  }

  private key = (dspId: string, bidId: string) => `${dspId}\u0000${bidId}`;

  put(bid: ValidBid, now = Date.now()) {
    const key = this.key(bid.bidderId, bid.bidId);
    this.entries.delete(key); // re-inserted last: a Map iterates in insertion order, oldest first
    if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { bid, expiresAt: now + this.ttlMs });
  }

  /** The cached bid, removed (a bid renders once), or null when unknown or expired. */
  take(dspId: string, bidId: string, now = Date.now()): ValidBid | null {
    const key = this.key(dspId, bidId);
    const entry = this.entries.get(key);
    this.entries.delete(key);
    return entry && entry.expiresAt > now ? entry.bid : null;
  }

  get size() {
    return this.entries.size;
  }

  sweep(now = Date.now()) {
    for (const [key, entry] of this.entries) if (entry.expiresAt <= now) this.entries.delete(key);
  }

  close() {
    clearInterval(this.sweeper);
  }
}
