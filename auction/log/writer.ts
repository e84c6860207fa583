import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import { insertSettingAsideRefused, isDataRefusal } from '../../lib/clickhouse/refused-rows';
import type { DeadLetter } from '../../domain/dead-letters/store';
import { seatNonBidCode } from '../non-bid';
import { boundedText } from '../dsp/dsp-content';
import type { AuctionContext, BidRecord, ValidBid } from '../types';
import { INHOUSE_STATS_TABLE, type InhouseStatsRow } from '../../domain/serving/traffic';

/**
 * The auction log: rows are queued in memory and inserted in batches every
 * `flushMs` or `batchSize` auctions, off the request. `drain()` flushes
 * everything (SIGTERM). A failed insert keeps its rows for the next flush
 * (bounded: the oldest are dropped past maxQueued); a batch ClickHouse refuses
 * for its data has the refused rows set aside as dead letters and the rest stored.
 *
 * Each row is encoded (one JSONEachRow line) when it is recorded, straight
 * into Buffers outside the JS heap: encoding a whole batch of row objects at
 * flush time (what the client does with an array) stalled the event loop for
 * milliseconds once per batch, and rows held in the heap for up to a second
 * were all copied and promoted by the young-generation GC.
 */
/** 'YYYY-MM-DD hh:mm:ss' (UTC) of the current second, computed once per second. */
let clockSecond = -1;
let clockText = '';
export function nowDateTime(): string {
  const ms = Date.now();
  const second = Math.floor(ms / 1000);
  if (second !== clockSecond) {
    clockSecond = second;
    clockText = new Date(second * 1000).toISOString().slice(0, 19).replace('T', ' ');
  }
  return clockText;
}

interface Batch {
  chunks: Buffer[];
  rows: number;
}
type LogTable = 'auctions' | 'auction_bids' | typeof INHOUSE_STATS_TABLE;
const CHUNK_BYTES = 256 * 1024;

/** Newline-terminated rows in off-heap Buffers, oldest first. */
export class RowQueue {
  private sealed: Batch[] = [];
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;
  private chunkRows = 0;
  constructor(private readonly maxRows: number) {}

  push(line: string) {
    // A UTF-16 unit is at most 3 UTF-8 bytes: the exact length is needed only near the chunk's end.
    if (this.used + line.length * 3 + 1 > this.chunk.length) {
      const bytes = Buffer.byteLength(line) + 1;
      if (this.used + bytes > this.chunk.length) this.seal(Math.max(CHUNK_BYTES, bytes));
    }
    this.used += this.chunk.write(line, this.used);
    this.chunk[this.used++] = 0x0a;
    this.chunkRows += 1;
  }

  get rows(): number {
    return this.sealed.reduce((n, b) => n + b.rows, this.chunkRows);
  }

  /** Everything queued, as one batch (null when empty); the queue is left empty. */
  take(): Batch | null {
    this.seal(CHUNK_BYTES);
    const batches = this.sealed.splice(0);
    if (batches.length === 0) return null;
    return { chunks: batches.flatMap((b) => b.chunks), rows: batches.reduce((n, b) => n + b.rows, 0) };
  }

  /** A batch that failed goes back in front; past maxRows the oldest batches are dropped. */
  putBack(batch: Batch) {
    this.sealed.unshift(batch);
    while (this.rows > this.maxRows && this.sealed.length > 0) this.sealed.shift();
  }

  private seal(nextBytes: number) {
    if (this.chunkRows > 0) this.sealed.push({ chunks: [this.chunk.subarray(0, this.used)], rows: this.chunkRows });
    if (this.chunkRows > 0 || nextBytes > this.chunk.length) this.chunk = Buffer.allocUnsafe(nextBytes);
    this.used = 0;
    this.chunkRows = 0;
  }
}

/** A JSON string as JSON.stringify writes it: quoted as is unless something in it needs escaping (quote, backslash, control, surrogate). */
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;
const str = (s: string) => (NEEDS_ESCAPE.test(s) ? JSON.stringify(s) : `"${s}"`);
/** A number as JSON.stringify writes it (null when not finite). */
const num = (n: number) => (Number.isFinite(n) ? `${n}` : 'null');
const strings = (list: readonly string[]) => {
  let out = '[';
  for (let i = 0; i < list.length; i += 1) out += i === 0 ? str(list[i]) : `,${str(list[i])}`;
  return `${out}]`;
};

/** A log row's key among dead letters: its auction, and for a bid its bidder (a stats row: its ad and outcome). */
function auctionRowKey(line: string): string {
  try {
    const row = JSON.parse(line) as { auction_id?: string; bidder_id?: string; ad_id?: string; outcome?: string };
    if (row.auction_id === undefined) return `${row.ad_id}:${row.outcome}`; // an in-house stats row
    return row.bidder_id !== undefined ? `${row.auction_id}:${row.bidder_id}` : row.auction_id;
  } catch {
    return `unparsable:${line.length}:${line.slice(0, 64)}`;
  }
}

/** The served in-house ad's relevance, to three places; -1 when there is none (a DSP's ad, an opener, no fill). */
function relevanceOf(winner: ValidBid | null): number {
  const r = winner?.inhouse?.relevance;
  return r === undefined || !Number.isFinite(r) ? -1 : Math.round(r * 1000) / 1000;
}

/** The conversation's categories (auction/signals.ts), then the sensitive ones the safety screen found, each once. */
function loggedCategories(ctx: AuctionContext): readonly string[] {
  const ours = ctx.signals?.categories ?? [];
  const sensitive = ctx.safety?.siteCat ?? [];
  return sensitive.length ? [...new Set([...ours, ...sensitive])] : ours;
}

export class AuctionLog {
  private readonly maxQueued = 200_000;
  private readonly auctions = new RowQueue(this.maxQueued);
  private readonly bids = new RowQueue(this.maxQueued * 4);
  private readonly inhouseStats = new RowQueue(this.maxQueued);
  private timer: NodeJS.Timeout;
  private flushing: Promise<void> = Promise.resolve();

  constructor(
    private readonly clickhouse: ClickHouseClient,
    private readonly opts: { batchSize: number; flushMs: number; setAside?: (letters: DeadLetter[]) => Promise<void> },
  ) {
    this.timer = setInterval(() => {
      void this.flush();
    }, opts.flushMs);
    this.timer.unref();
  }

  record(ctx: AuctionContext, winner: ValidBid | null, records: BidRecord[], latencyMs: number, format: string | null, noFillReason = '') {
    const time = str(nowDateTime());
    const auctionId = str(ctx.auctionId);
    const req = ctx.request;
    const test = ctx.publisher.test ? 1 : 0;
    let valid = 0;
    for (const r of records) if (r.outcome !== 'rejected') valid += 1;
    // Written out rather than JSON.stringify of a row object: the same text (same keys, order, escaping), without the object.
    this.auctions.push(
      `{"auction_id":${auctionId},"event_time":${time},"publisher_id":${str(ctx.publisher.publicId)},"request_type":${str(req.request_type)},` +
        `"country":${str(req.country_code)},"device":${str(req.device)},"ad_formats":${strings(req.ad_formats)},"tmax_ms":${num(ctx.tmaxMs)},` +
        `"bidders":${records.length},"valid_bids":${valid},"filled":${winner ? 1 : 0},"winner_bidder":${str(winner?.bidderId ?? '')},` +
        `"winner_bid_id":${str(winner?.bidId ?? '')},"winner_ad_id":${str(winner?.inhouse?.adId ?? '')},"winner_campaign_id":${str(winner?.inhouse?.campaignId ?? '')},` +
        `"format":${str(format ?? '')},"price_micros":${num(winner?.priceMicros ?? 0)},"latency_ms":${num(latencyMs)},"no_fill_reason":${str(noFillReason)},` +
        `"test":${test},"winner_relevance":${num(relevanceOf(winner))},"categories":${strings(loggedCategories(ctx))},"language":${str(req.language ?? ctx.signals?.language ?? '')}}`,
    );
    for (const r of records) {
      this.bids.push(
        `{"auction_id":${auctionId},"event_time":${time},"bidder_id":${str(r.bidderId)},"bidder_name":${str(r.bidderName)},"bidder_kind":${str(r.kind)},` +
          `"bid_id":${str(r.bidId ?? '')},"price_micros":${num(r.priceMicros ?? 0)},"outcome":${str(r.outcome)},"reason":${str(r.reason ?? '')},` +
          `"seat_non_bid_code":${r.reason ? seatNonBidCode(r.reason) : -1},"detail":${str(boundedText(r.detail ?? '', 500))},"latency_ms":${num(r.latencyMs)},` +
          `"ad_id":${str(r.adId ?? '')},"campaign_id":${str(r.campaignId ?? '')},"test":${test}}`,
      );
    }
    if (this.auctions.rows >= this.opts.batchSize) void this.flush();
  }

  /** The in-house bidder's tallies (auction/inhouse/tally.ts), written with the next flush. */
  recordInhouseStats(rows: readonly InhouseStatsRow[]) {
    for (const row of rows) this.inhouseStats.push(JSON.stringify(row));
  }

  flush(): Promise<void> {
    this.flushing = this.flushing.then(async () => {
      const auctions = this.auctions.take();
      const bids = this.bids.take();
      try {
        if (auctions) await this.insert('auctions', auctions);
      } catch (err) {
        this.requeue(auctions, bids, err);
        return;
      }
      try {
        if (bids) await this.insert('auction_bids', bids);
      } catch (err) {
        this.requeue(null, bids, err);
      }
      const stats = this.inhouseStats.take();
      try {
        if (stats) await this.insert(INHOUSE_STATS_TABLE, stats);
      } catch (err) {
        console.error(`auction: in-house stats insert failed, will retry: ${(err as Error).message}`);
        this.inhouseStats.putBack(stats!);
      }
    });
    return this.flushing;
  }

  /**
   * One immediate retry: a pooled keep-alive socket the server already closed
   * fails the first attempt. A batch refused for its data is split to set the
   * refused rows aside (rare: every string a DSP sends is checked first).
   */
  private async insert(table: LogTable, batch: Batch) {
    try {
      await this.send(table, batch.chunks);
    } catch (err) {
      if (isDataRefusal(err)) return this.setAsideRefused(table, batch);
      await this.send(table, batch.chunks);
    }
  }

  private async send(table: LogTable, chunks: readonly Buffer[]) {
    // The rows are already JSONEachRow text: sent as the body of the (value-free) INSERT.
    const { stream } = await this.clickhouse.exec({ query: `INSERT INTO ${table} FORMAT JSONEachRow`, values: Readable.from(chunks, { objectMode: false }) });
    stream.resume();
    await new Promise((resolve, reject) => {
      stream.once('end', resolve);
      stream.once('error', reject);
    });
  }

  private async setAsideRefused(table: LogTable, batch: Batch) {
    const lines = Buffer.concat(batch.chunks).toString('utf8').split('\n').filter(Boolean);
    const refused = await insertSettingAsideRefused(lines, (part) => this.send(table, [Buffer.from(`${part.join('\n')}\n`)]));
    if (refused.length === 0) return;
    const letters = refused.map(({ row, error }) => ({ targetTable: table, rowKey: auctionRowKey(row), payload: row, error }));
    if (this.opts.setAside) await this.opts.setAside(letters);
    else console.error(`auction: ${letters.length} ${table} rows refused by ClickHouse and dropped: ${letters[0].error}`);
  }

  private requeue(auctions: Batch | null, bids: Batch | null, err: unknown) {
    console.error(`auction: log insert failed, will retry: ${(err as Error).message}`);
    if (auctions) this.auctions.putBack(auctions);
    if (bids) this.bids.putBack(bids);
  }

  get queued() {
    return this.auctions.rows + this.bids.rows + this.inhouseStats.rows;
  }

  /** Flushes until the queue is empty (or a flush fails twice in a row), after any flush in flight: its rows are no longer queued. */
  async drain(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    for (let attempt = 0; attempt < 3 && this.queued > 0; attempt += 1) await this.flush();
  }
}
