/**
 * What pacing and frequency caps add to an auction's CPU (bench:auction prints
 * it): the in-house bidder over the real index, with and without its delivery
 * controls, in batches of 100 calls; the p50 of the per-call difference. The
 * requests are openers (no relevance filter), so every servable ad reaches the
 * controls: an upper bound for contextual requests. The caps' replica holds the
 * window's counts as the service would; pacing plans come from the database.
 * The index: INDEX_SIZE servable ads of as many campaigns (every one reaches the controls).
 */
import { benchAuctionContext, benchServableAd } from './support/auction-context';
import type { Db } from '../lib/db';
import { textEncoder } from '../domain/understanding/encoder';
import { relevanceProfile } from '../domain/relevance/profile';

/** One profile for every ad: the requests are openers, which skip relevance. */
const relevance = relevanceProfile(textEncoder(), { hints: ['run'], copy: 'Run faster. Light shoes' });

const BATCH = 100;
const BATCHES = 200;
const INDEX_SIZE = 500;

export async function controlsCostMs(db: Db): Promise<{ withoutMs: number; withMs: number; costMs: number; ads: number }> {
  const { inhouseBid } = await import('../auction/inhouse/bidder');
  const { alwaysOpenBudget, priorCtr } = await import('../auction/inhouse/eligibility');
  const { FrequencyCaps } = await import('../auction/inhouse/frequency-caps');
  const { PacingGate } = await import('../auction/inhouse/pacing-gate');
  const { createPgPool } = await import('../lib/db');
  const { config } = await import('../lib/config');
  const pool = createPgPool(undefined, 1);
  const caps = new FrequencyCaps(pool, {
    perUserDay: config.frequency.perUserDay,
    perConversation: config.frequency.perConversation,
    provisionalMs: config.frequency.provisionalSeconds * 1000,
    syncMs: 60_000,
  });
  const pacing = new PacingGate(db, 60_000);
  try {
    await Promise.all([caps.start(), pacing.refresh()]);
    const ads = Array.from({ length: INDEX_SIZE }, () => benchServableAd(relevance, { title: 'Run faster', body: 'Light shoes' }));
    pacing.adopt(ads);
    const plain = { budget: alwaysOpenBudget, ctr: priorCtr };
    const controlled = { ...plain, pacing, caps };
    const batchMs = (deps: typeof plain) => {
      const started = performance.now();
      for (let i = 0; i < BATCH; i += 1) inhouseBid(benchAuctionContext({ country_code: 'AQ', ad_formats: ['sponsored_message', 'poll'] }), ads, deps);
      return (performance.now() - started) / BATCH;
    };
    const without: number[] = [];
    const withControls: number[] = [];
    for (let b = 0; b < BATCHES; b += 1) {
      without.push(batchMs(plain));
      withControls.push(batchMs(controlled));
    }
    const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
    const diffs = without.map((w, i) => withControls[i] - w);
    return { withoutMs: p50(without), withMs: p50(withControls), costMs: p50(diffs), ads: ads.length };
  } finally {
    pacing.close();
    await caps.close();
    await pool.end();
  }
}
