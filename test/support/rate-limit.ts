/** What tests of the per-key hourly budget share (test/rate-limit.test.ts, test/production/copies.test.ts). */
import pLimit from 'p-limit';

/**
 * `count` authenticated requests spread round-robin over `urls`, 20 at a time;
 * returns the statuses. Every `/v1` request counts against the budget, so the
 * burst uses an unknown route (404): the cheapest request that is authenticated
 * and counted, which keeps these files fast.
 */
export const PROBE = '/v1/rate-limit-probe';
export async function burst(urls: string[], token: string, count: number): Promise<number[]> {
  const limit = pLimit(20);
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      limit(async () => {
        const res = await fetch(`${urls[i % urls.length]}${PROBE}`, { headers: { authorization: `Bearer ${token}` } });
        await res.arrayBuffer();
        return res.status;
      }),
    ),
  );
}

/**
 * Budgets are hourly windows; a burst that straddles the turn of the hour is
 * estimated from two windows and may be off by one. Start clear of the edge.
 */
export async function clearOfWindowEdge(marginMs = 20_000): Promise<void> {
  const toNextHour = 3_600_000 - (Date.now() % 3_600_000);
  if (toNextHour < marginMs) await new Promise((r) => setTimeout(r, toNextHour + 1000));
}
