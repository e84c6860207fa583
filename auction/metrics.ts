import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of the auction (GET /metrics). Millisecond histograms
 * with buckets fine enough for single milliseconds at the low end.
 */
export const MS_BUCKETS = [0.25, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 250, 500, 1000, 2000, 5000];

/** What the delivery controls hold, read when scraped. */
export interface ControlsState { pacedCampaigns(): number; frequencyKeys(): number }

export function createAuctionMetrics(index: { size(): number; loadedAt(): number }, controls?: ControlsState) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'auction_' });
  const m = {
    registry,
    auctions: new Counter({ name: 'auction_requests_total', help: 'Auctions run, by result (filled, no_fill)', labelNames: ['result'], registers: [registry] }),
    duration: new Histogram({ name: 'auction_duration_ms', help: 'End-to-end auction time inside the service (ms)', buckets: MS_BUCKETS, registers: [registry] }),
    overhead: new Histogram({ name: 'auction_overhead_ms', help: 'Auction time minus the slowest bidder call (ms): our own overhead', buckets: MS_BUCKETS, registers: [registry] }),
    dspLatency: new Histogram({ name: 'auction_dsp_latency_ms', help: 'DSP bid call latency (ms)', labelNames: ['dsp'], buckets: MS_BUCKETS, registers: [registry] }),
    bids: new Counter({ name: 'auction_bids_total', help: 'Bids by bidder and outcome (won, lost, rejected)', labelNames: ['bidder', 'outcome'], registers: [registry] }),
    nonBids: new Counter({ name: 'auction_non_bids_total', help: 'Non-bids by bidder, reason and IAB seat-non-bid code', labelNames: ['bidder', 'reason', 'code'], registers: [registry] }),
    timeouts: new Counter({ name: 'auction_dsp_timeouts_total', help: 'DSP calls cut at their deadline', labelNames: ['dsp'], registers: [registry] }),
    errors: new Counter({ name: 'auction_dsp_errors_total', help: 'DSP calls failed (HTTP error, unreachable, unparsable)', labelNames: ['dsp'], registers: [registry] }),
    inhouseOutcomes: new Counter({
      name: 'auction_inhouse_outcomes_total', help: 'What the in-house bidder did with the ads it looked at (skip reason, eligible, won, outbid), counted per ad', labelNames: ['outcome'], registers: [registry],
    }),
    pacedCampaigns: new Gauge({
      name: 'auction_paced_campaigns', help: 'Campaigns the pacing plan holds back now (participation < 1)', registers: [registry], collect() { this.set(controls?.pacedCampaigns() ?? 0); },
    }),
    frequencyKeys: new Gauge({
      name: 'auction_frequency_keys', help: 'Users and conversations the frequency-cap replica holds (bounded by the window)', registers: [registry],
      collect() { this.set(controls?.frequencyKeys() ?? 0); },
    }),
    indexSize: new Gauge({ name: 'auction_index_ads', help: 'Ads in the in-memory index', registers: [registry], collect() { this.set(index.size()); } }),
    indexAge: new Gauge({
      name: 'auction_index_age_seconds', help: 'Seconds since the ad index was last loaded', registers: [registry],
      collect() { const at = index.loadedAt(); this.set(at ? (Date.now() - at) / 1000 : -1); },
    }),
  };
  return m;
}
export type AuctionMetrics = ReturnType<typeof createAuctionMetrics>;
