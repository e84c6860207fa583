import { LRUCache } from 'lru-cache';

/**
 * A per-key event budget taken from the shared rate limiter in chunks: each
 * api process reserves `chunk` events at a time (one counter update in
 * PostgreSQL) and hands them out locally until the chunk is spent or its
 * window ends. A steady stream then costs one counter update per chunk instead
 * of one per flush. Near the limit, when a chunk no longer fits, the exact cost
 * is asked for, so a key still gets everything its budget allows; an unused
 * remainder of a chunk counts as spent in its window.
 */
export interface BudgetVerdict {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the window ends. */
  resetAt: number;
}

export function leasedBudget<V extends BudgetVerdict>(
  consume: (key: string, cost: number) => Promise<V>,
  chunk: () => number,
): (key: string, cost: number) => Promise<V> {
  // One lease per key in use; bounded (the least recently used goes): an evicted lease's remainder counts as spent, as at its window's end.
  const leases = new LRUCache<string, Lease<V>>({ max: 10_000 });

  /**
   * Reserves the next chunk while the lease still has half of one: a steady stream then never waits for
   * the counter's round trip.
   * A chunk that no longer fits is not asked for again: near the limit, exact costs are.
   */
  const refillAhead = (key: string, lease: Lease<V>) => {
    const size = chunk();
    if (lease.refill || lease.chunkRefused || lease.left >= size / 2) return;
    lease.refill = consume(key, size)
      .then(
        (reserved) => {
          if (!reserved.allowed) lease.chunkRefused = true;
          // A reservation in a new window replaces the old remainder, counted as spent in its own window.
          else if (reserved.resetAt === lease.verdict.resetAt) lease.left += size;
          else Object.assign(lease, { left: size, verdict: reserved });
        },
        () => undefined, // the next take asks again, in the foreground
      )
      .finally(() => {
        lease.refill = undefined;
      });
  };

  const take = async (key: string, cost: number): Promise<V> => {
    const lease = leases.get(key);
    if (lease && lease.verdict.resetAt * 1000 > Date.now()) {
      if (lease.left >= cost) {
        lease.left -= cost;
        refillAhead(key, lease);
        // What this process still holds counts as remaining.
        return { ...lease.verdict, remaining: lease.verdict.remaining + lease.left };
      }
      // A burst outran the refill under way: wait for it rather than reserve another chunk beside it.
      if (lease.refill) {
        await lease.refill;
        return take(key, cost);
      }
    }
    leases.delete(key);
    const size = lease?.chunkRefused && lease.verdict.resetAt * 1000 > Date.now() ? cost : Math.max(cost, chunk());
    const reserved = await consume(key, size);
    if (reserved.allowed) {
      leases.set(key, { left: size - cost, verdict: reserved, chunkRefused: size === cost && size < chunk() });
      return { ...reserved, remaining: reserved.remaining + size - cost };
    }
    return size > cost ? consume(key, cost) : reserved;
  };
  return take;
}

interface Lease<V> {
  /** Events reserved and not yet handed out. */
  left: number;
  /** The reservation's verdict: its window and what the key had left then. */
  verdict: V;
  /** The next chunk's reservation, while under way. */
  refill?: Promise<void>;
  /** A whole chunk no longer fits this window: the key is near its limit. */
  chunkRefused: boolean;
}

/** 1% of the limit, between 1 and 1,000 events. */
export const defaultChunk = (limit: number) => Math.max(1, Math.min(1000, Math.floor(limit / 100)));
