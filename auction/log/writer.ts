import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { seatNonBidCode } from '../non-bid';
import type { AuctionContext, BidRecord, ValidBid } from '../types';

/**
 * The auction log: rows are queued in memory and inserted in batches every
 * `flushMs` or `batchSize` auctions, off the request. `drain()` flushes
 * everything (SIGTERM). A failed insert keeps its rows for the next flush
 * (bounded: the oldest are dropped past maxQueued).
 *
 * Each row is encoded (one JSONEachRow line) when it is recorded: a few
 * microseconds per auction, where encoding a whole batch at flush time (what
 * the client does with an array of objects) stalled the event loop for
 * milliseconds once per batch, and kept thousands of objects alive long
 * enough to reach the old generation.
 */
/** 'YYYY-MM-DD hh:mm:ss' (UTC) of the current second, computed once per second. */
let clockSecond = -1;
let clockText = '';
function nowDateTime(): string {
  const ms = Date.now();
  const second = Math.floor(ms / 1000);
  if (second !== clockSecond) {
    clockSecond = second;
    clockText = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
  }
  return clockText;
}

export class AuctionLog {
  private auctions: string[] = [];
  private bids: string[] = [];
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();
  private readonly maxQueued = 200_000;

  constructor(private readonly clickhouse: ClickHouseClient, private readonly opts: { batchSize: number; flushMs: number }) {
    this.timer = setInterval(() => { void this.flush(); }, opts.flushMs);
    this.timer.unref();
  }

  record(ctx: AuctionContext, winner: ValidBid | null, records: BidRecord[], latencyMs: number, format: string | null) {
    const time = nowDateTime();
    this.auctions.push(JSON.stringify({
      auction_id: ctx.auctionId, event_time: time, publisher_id: ctx.publisher.publicId, request_type: ctx.request.request_type,
      country: ctx.request.country_code, device: ctx.request.device, ad_formats: ctx.request.ad_formats, tmax_ms: ctx.tmaxMs,
      bidders: records.length, valid_bids: records.filter((r) => r.outcome !== 'rejected').length, filled: winner ? 1 : 0,
      winner_bidder: winner?.bidderId ?? '', winner_bid_id: winner?.bidId ?? '', winner_ad_id: winner?.inhouse?.adId ?? '',
      winner_campaign_id: winner?.inhouse?.campaignId ?? '', format: format ?? '', price_micros: winner?.priceMicros ?? 0, latency_ms: latencyMs,
    }));
    for (const r of records) {
      this.bids.push(JSON.stringify({
        auction_id: ctx.auctionId, event_time: time, bidder_id: r.bidderId, bidder_name: r.bidderName, bidder_kind: r.kind,
        bid_id: r.bidId ?? '', price_micros: r.priceMicros ?? 0, outcome: r.outcome, reason: r.reason ?? '',
        seat_non_bid_code: r.reason ? seatNonBidCode(r.reason) : -1, detail: (r.detail ?? '').slice(0, 500), latency_ms: r.latencyMs,
        ad_id: r.adId ?? '', campaign_id: r.campaignId ?? '',
      }));
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
  private async insert(table: 'auctions' | 'auction_bids', lines: string[]) {
    const body = `${lines.join('\n')}\n`;
    const send = async () => {
      // The rows are already JSONEachRow text: sent as the body of the (value-free) INSERT.
      const { stream } = await this.clickhouse.exec({ query: `INSERT INTO ${table} FORMAT JSONEachRow`, values: Readable.from([body], { objectMode: false }) });
      stream.resume();
      await new Promise((resolve, reject) => { stream.once('end', resolve); stream.once('error', reject); });
    };
    try {
      await send();
    } catch {
      await send();
    }
  }

  private requeue(auctions: string[], bids: string[], err: unknown) {
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
