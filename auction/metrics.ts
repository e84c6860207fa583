import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * Prometheus metrics of the auction (GET /metrics). Millisecond histograms
 * with buckets fine enough for single milliseconds at the low end. DSPs are
 * labelled by name (`dsp`, `bidder`: what `adctl dsp list` shows), never by id;
 * our own bidder is `bidder="inhouse"`. docs/operations.md, "Metrics", lists them all.
 */
export const MS_BUCKETS = [0.25, 0.5, 1, 2, 3, 4, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 250, 500, 1000, 2000, 5000];

/** What the delivery controls hold, read when scraped. */
export interface ControlsState {
  pacedCampaigns(): number;
  /** When the pacing plan applied now began to be read (epoch ms; 0: never). */
  pacingPlanReadAt(): number;
  frequencyKeys(): number;
}

export function createAuctionMetrics(index: { size(): number; loadedAt(): number }, controls?: ControlsState) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'auction_' });
  const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers: [registry] });
  const histogram = (name: string, help: string, labelNames: string[] = []) =>
    new Histogram({ name, help, labelNames, buckets: MS_BUCKETS, registers: [registry] });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  return {
    registry,
    auctions: counter('auction_requests_total', 'Auctions run, by result (filled, no_fill)', ['result']),
    noFills: counter('auction_no_fills_total', 'Auctions answered without an ad, by no_fill_reason', ['reason']),
    sandbox: counter('auction_sandbox_requests_total', 'Auctions of sandbox (test) publishers: billed and counted nowhere'),
    rateLimited: counter('auction_rate_limited_total', 'Ad requests refused 429, over the rate limit of their publisher key, by publisher id', ['publisher']),
    servedRelevance: new Histogram({
      name: 'auction_served_relevance',
      help: 'Relevance (docs/relevance.md) of the in-house ads served: how far above the bar our ads win',
      buckets: [0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1],
      registers: [registry],
    }),
    signalLanguage: counter(
      'auction_signal_language_total',
      "Auctions by where device.language came from (docs/signals.md): host (the request's language), conversation (detected), header (Accept-Language), none",
      ['source'],
    ),
    contextualOnly: counter(
      'auction_contextual_only_total',
      'Auctions run contextual only for every bidder (no user id, the IP cut, capping by conversation: domain/privacy), by why: minor, no_tc_string, tcf_purposes, tcfca_purposes, gpp_opt_out, us_privacy_opt_out; its share of auction_requests_total is the contextual-only share',
      ['reason'],
    ),
    signalCategory: counter(
      'auction_signal_category_total',
      "Auctions by the conversation's first content category (IAB CT 3.0 tier-1 id, docs/signals.md), or none",
      ['category'],
    ),
    duration: histogram('auction_duration_ms', 'End-to-end auction time inside the service (ms)'),
    overhead: histogram('auction_overhead_ms', 'Auction time minus the slowest bidder call (ms): our own overhead'),
    dspLatency: histogram('auction_dsp_latency_ms', 'DSP bid call latency (ms), by DSP name; its _count is the calls made', ['dsp']),
    bids: counter('auction_bids_total', 'Bids by bidder name and outcome (won, lost, rejected)', ['bidder', 'outcome']),
    nonBids: counter('auction_non_bids_total', 'Non-bids by bidder name, reason and IAB seat-non-bid code', ['bidder', 'reason', 'code']),
    timeouts: counter('auction_dsp_timeouts_total', 'DSP calls cut at their deadline, by DSP name', ['dsp']),
    errors: counter('auction_dsp_errors_total', 'DSP calls failed (HTTP error, unreachable, unparsable, render failed), by DSP name', ['dsp']),
    inhouseOutcomes: counter(
      'auction_inhouse_outcomes_total',
      'What the in-house bidder did with the ads it looked at (skip reason, eligible, won, outbid), counted per ad',
      ['outcome'],
    ),
    pacedCampaigns: gauge('auction_paced_campaigns', 'Campaigns the pacing plan holds back now (participation < 1)', () => controls?.pacedCampaigns() ?? 0),
    pacingPlanRead: gauge(
      'auction_pacing_plan_read_timestamp_seconds',
      'When the pacing plan this process applies began to be read from campaign_pacing (Unix seconds): every plan written before it is applied',
      () => (controls?.pacingPlanReadAt() ?? 0) / 1000,
    ),
    frequencyKeys: gauge(
      'auction_frequency_keys',
      'Users and conversations the frequency-cap replica holds (bounded by the window)',
      () => controls?.frequencyKeys() ?? 0,
    ),
    indexSize: gauge('auction_index_ads', 'Ads in the in-memory index', () => index.size()),
    indexAge: gauge('auction_index_age_seconds', 'Seconds since the ad index was last loaded', () => {
      const at = index.loadedAt();
      return at ? (Date.now() - at) / 1000 : -1;
    }),
  };
}
export type AuctionMetrics = ReturnType<typeof createAuctionMetrics>;
