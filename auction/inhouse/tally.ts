import { INHOUSE_OUTCOMES, OUTCOME_SLOT, type InhouseOutcome } from '../../domain/serving/eligibility';
import type { InhouseStatsRow } from '../../domain/serving/traffic';

/**
 * What the in-house bidder did with each ad, counted in memory on the hot path
 * (one typed-array increment per ad looked at) and written to ClickHouse every
 * few seconds off it (`inhouse_stats`, read by the delivery diagnostics).
 * Winning prices of auctions an eligible ad lost are sampled for the
 * diagnostics' median (at most WIN_PRICE_SAMPLES per ad per flush), each with
 * who won it, so that the median is shown only when enough advertisers make it
 * anonymous (domain/serving/diagnostics.ts).
 */
export interface AdTally {
  readonly counts: Uint32Array;
  readonly winPrices: number[];
  /** The advertiser of each sampled price, at the same index (domain/serving/traffic.ts, winningAdvertiser). */
  readonly winAdvertisers: string[];
  seenPrices: number;
  /** The highest relevance an ad scored while below the bar (not_relevant) since the last take: how close it came. */
  closestRelevance: number;
}

const WIN_PRICE_SAMPLES = 32;

export const newAdTally = (): AdTally => ({
  counts: new Uint32Array(INHOUSE_OUTCOMES.length),
  winPrices: [],
  winAdvertisers: [],
  seenPrices: 0,
  closestRelevance: 0,
});

export function count(tally: AdTally, outcome: InhouseOutcome): void {
  tally.counts[OUTCOME_SLOT[outcome]] += 1;
}

/** An ad scored `score` against the conversation, below the bar: the closest it came is kept for the diagnostics. */
export function noteRelevance(tally: AdTally, score: number): void {
  if (score > tally.closestRelevance) tally.closestRelevance = score;
}

/** An eligible ad lost to `advertiser`'s bid of `priceMicros`: counted, and the price kept (with its advertiser) by reservoir sampling. */
export function countOutbid(tally: AdTally, priceMicros: number, advertiser: string): void {
  count(tally, 'outbid');
  tally.seenPrices += 1;
  let slot = tally.winPrices.length;
  if (slot >= WIN_PRICE_SAMPLES) {
    slot = Math.floor(Math.random() * tally.seenPrices);
    if (slot >= WIN_PRICE_SAMPLES) return;
  }
  tally.winPrices[slot] = priceMicros;
  tally.winAdvertisers[slot] = advertiser;
}

interface TalliedAd {
  readonly adId: string;
  readonly adGroupId: string;
  readonly campaignId: string;
  tally: AdTally;
}

/**
 * Every indexed ad's tally, kept across index reloads (a reloaded entry takes
 * over its ad's tally) and bounded by the index: an ad that left it is written
 * out once more and forgotten.
 */
export class InhouseTallies {
  private byAd = new Map<string, TalliedAd>();
  private current: readonly TalliedAd[] = [];

  /** Gives each ad of a freshly loaded index the tally its ad already had. */
  adopt(ads: readonly TalliedAd[]): void {
    for (const ad of ads) {
      const known = this.byAd.get(ad.adId);
      if (known) ad.tally = known.tally;
      else this.byAd.set(ad.adId, ad);
    }
    this.current = ads;
  }

  /** The counts since the last take, as rows (zero counts left out); the tallies start again from zero. */
  take(eventTime: string): InhouseStatsRow[] {
    const rows: InhouseStatsRow[] = [];
    for (const ad of this.byAd.values()) rows.push(...rowsOf(ad, eventTime));
    this.byAd = new Map(this.current.map((ad) => [ad.adId, ad]));
    return rows;
  }
}

function rowsOf(ad: TalliedAd, eventTime: string): InhouseStatsRow[] {
  const { counts, winPrices, winAdvertisers } = ad.tally;
  const rows: InhouseStatsRow[] = [];
  INHOUSE_OUTCOMES.forEach((outcome, slot) => {
    if (counts[slot] === 0) return;
    rows.push({
      event_time: eventTime,
      campaign_id: ad.campaignId,
      ad_group_id: ad.adGroupId,
      ad_id: ad.adId,
      outcome,
      requests: counts[slot],
      win_prices: outcome === 'outbid' ? [...winPrices] : [],
      win_advertisers: outcome === 'outbid' ? [...winAdvertisers] : [],
      closest_relevance: outcome === 'not_relevant' ? Math.round(ad.tally.closestRelevance * 1000) / 1000 : 0,
    });
  });
  counts.fill(0);
  winPrices.length = 0;
  winAdvertisers.length = 0;
  ad.tally.seenPrices = 0;
  ad.tally.closestRelevance = 0;
  return rows;
}
