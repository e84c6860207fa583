import type { ClickHouseClient } from '@clickhouse/client';
import { seatNonBidCode } from '../non-bid';
import type { AuctionContext, BidRecord, ValidBid } from '../types';

/**
 * The auction log: rows are queued in memory (the hot path only pushes to an
 * array) and inserted in batches every `flushMs` or `batchSize` rows, off the
 * request. `drain()` flushes everything (SIGTERM). A failed insert keeps its
 * rows for the next flush (bounded: the oldest are dropped past maxQueued).
 */
const toDateTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export class AuctionLog {
  private auctions: Record<string, unknown>[] = [];
  private bids: Record<string, unknown>[] = [];
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxQueued = 200_000;

  constructor(private readonly clickhouse: ClickHouseClient, private readonly opts: { batchSize: number; flushMs: number }) {
    this.timer = setInterval(() => { void this.flush(); }, opts.flushMs);
    this.timer.unref();
  }

  record(ctx: AuctionContext, winner: ValidBid | null, records: BidRecord[], latencyMs: number, format: string | null) {
    const time = toDateTime(Date.now());
    this.auctions.push({
      auction_id: ctx.auctionId, event_time: time, publisher_id: ctx.publisher.publicId, request_type: ctx.request.request_type,
      country: ctx.request.country_code, device: ctx.request.device, ad_formats: ctx.request.ad_formats, tmax_ms: ctx.tmaxMs,
      bidders: records.length, valid_bids: records.filter((r) => r.outcome !== 'rejected').length, filled: winner ? 1 : 0,
      winner_bidder: winner?.bidderId ?? '', winner_bid_id: winner?.bidId ?? '', winner_ad_id: winner?.inhouse?.adId ?? '',
      winner_campaign_id: winner?.inhouse?.campaignId ?? '', format: format ?? '', price_micros: winner?.priceMicros ?? 0, latency_ms: latencyMs,
    });
    for (const r of records) {
      this.bids.push({
        auction_id: ctx.auctionId, event_time: time, bidder_id: r.bidderId, bidder_name: r.bidderName, bidder_kind: r.kind,
        bid_id: r.bidId ?? '', price_micros: r.priceMicros ?? 0, outcome: r.outcome, reason: r.reason ?? '',
        seat_non_bid_code: r.reason ? seatNonBidCode(r.reason) : -1, detail: (r.detail ?? '').slice(0, 500), latency_ms: r.latencyMs,
        ad_id: r.adId ?? '', campaign_id: r.campaignId ?? '',
      });
    }
    if (this.auctions.length >= this.opts.batchSize) void this.flush();
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const auctions = this.auctions.splice(0);
      const bids = this.bids.splice(0);
      try {
        if (auctions.length) await this.insert('auctions', auctions);
      } catch (err) {
        this.requeue(auctions, bids, err);
        return;
      }
      try {
        if (bids.length) await this.insert('auction_bids', bids);
      } catch (err) {
        this.requeue([], bids, err);
      }
    });
    return this.flushing;
  }

  /** One immediate retry: a pooled keep-alive socket the server already closed fails the first attempt. */
  private async insert(table: string, values: Record<string, unknown>[]) {
    try {
      await this.clickhouse.insert({ table, values, format: 'JSONEachRow' });
    } catch {
      await this.clickhouse.insert({ table, values, format: 'JSONEachRow' });
    }
  }

  private requeue(auctions: Record<string, unknown>[], bids: Record<string, unknown>[], err: unknown) {
    console.error(`auction: log insert failed, will retry: ${(err as Error).message}`);
    this.auctions = [...auctions, ...this.auctions].slice(-this.maxQueued);
    this.bids = [...bids, ...this.bids].slice(-this.maxQueued * 4);
  }

  get queued() { return this.auctions.length + this.bids.length; }

  /** Flushes until the queue is empty (or a flush fails twice in a row). */
  async drain(): Promise<void> {
    clearInterval(this.timer);
    for (let attempt = 0; attempt < 3 && this.queued > 0; attempt += 1) await this.flush();
  }
}
