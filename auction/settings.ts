import { config } from '../lib/config';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/**
 * The auction's tunables (docs/configuration.md). Deadlines follow Prebid
 * Server: each DSP call gets the time left minus reserves for our own work and
 * the network, and a DSP that would get less than a minimum is skipped.
 */
export const auctionSettings = {
  port: config.auction.port,
  /** Default and maximum auction deadline (the spec's OpenRTB tmax). */
  defaultTmaxMs: 2000,
  /** Kept back from every DSP call for our own work after it (validation, response, network to the chat host). */
  ownWorkReserveMs: intFromEnv('AUCTION_RESERVE_MS', 15),
  /** Kept back from bid calls when a native DSP may need a render call afterwards. */
  renderReserveMs: intFromEnv('AUCTION_RENDER_RESERVE_MS', 60),
  /** A DSP that would get less than this is not called (`insufficient_time`). */
  minDspTimeMs: intFromEnv('AUCTION_MIN_DSP_MS', 10),
  /** CPM floor (micros) of every auction: OpenRTB bidfloor; lower bids are below_floor. */
  floorMicros: intFromEnv('AUCTION_FLOOR_MICROS', 0),
  /** Concurrent outgoing DSP calls per auction (p-limit). */
  fanOutConcurrency: intFromEnv('AUCTION_FANOUT', 16),
  /** Bids cached for render (spec: about 60 s). */
  bidCacheTtlMs: 60_000,
  /** Back-off: after this many consecutive failures a DSP is skipped for a while. */
  backoffAfterFailures: intFromEnv('AUCTION_BACKOFF_AFTER', 5),
  backoffBaseMs: intFromEnv('AUCTION_BACKOFF_BASE_MS', 1000),
  backoffMaxMs: intFromEnv('AUCTION_BACKOFF_MAX_MS', 30_000),
  /** Safety-net reload of the in-memory index even without notifications (ms). */
  indexSafetyReloadMs: intFromEnv('AUCTION_INDEX_RELOAD_MS', 60_000),
  /** Base of the tracking URLs handed to chat hosts (the api's public URL by default). */
  trackingUrl: (process.env.TRACKING_URL ?? config.api.publicUrl).replace(/\/+$/, ''),
  /** Lifetime of the signed tracking URLs: impression pixels minutes, clicks, feedback and polls days (lib/config.ts). */
  viewTokenTtlSeconds: config.delivery.viewTokenTtlSeconds,
  clickTokenTtlSeconds: config.delivery.clickTokenTtlSeconds,
  /** `test` in OpenRTB requests: 1 during onboarding (AUCTION_OPENRTB_TEST=1), else 0. */
  openrtbTest: process.env.AUCTION_OPENRTB_TEST === '1' ? 1 : 0,
  /** Our supply-chain node's host identifier (schain asi). */
  schainAsi: process.env.AUCTION_SCHAIN_ASI ?? new URL(config.api.publicUrl).hostname,
  /** ClickHouse log batching. */
  logBatchSize: intFromEnv('AUCTION_LOG_BATCH', 500),
  logFlushMs: intFromEnv('AUCTION_LOG_FLUSH_MS', 1000),
  /** How often the in-house bidder's tallies go to ClickHouse (`inhouse_stats`, read by the delivery diagnostics). */
  inhouseStatsFlushMs: intFromEnv('AUCTION_INHOUSE_STATS_FLUSH_MS', 10_000),
  /**
   * Ad requests per second per publisher key, all copies together, unless the publisher has its own
   * (`adctl publisher update --rate-limit`); the bench raises it. Counted over one-second windows, the
   * copies' counts shared every AUCTION_RATE_LIMIT_SYNC_MS (auction/publisher/rate-limit.ts).
   */
  publisherRateLimitPerSecond: intFromEnv('AUCTION_PUBLISHER_RATE_LIMIT', 100),
  rateLimitWindowMs: 1000,
  rateLimitSyncMs: intFromEnv('AUCTION_RATE_LIMIT_SYNC_MS', 200),
  /** Frequency caps (lib/config.ts: FREQUENCY_*): per user per 24 hours, per conversation; 0 turns one off. */
  frequencyCapPerUserDay: config.frequency.perUserDay,
  frequencyCapPerConversation: config.frequency.perConversation,
  frequencyProvisionalMs: config.frequency.provisionalSeconds * 1000,
  frequencySyncMs: config.frequency.syncMs,
  /** How often the pacing plan is read (AUCTION_PACING_REFRESH_MS). */
  pacingRefreshMs: config.pacing.auctionRefreshMs,
};
export type AuctionSettings = typeof auctionSettings;
