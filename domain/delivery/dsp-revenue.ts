import type { ClickHouseClient } from '@clickhouse/client';
import type { PoolClient } from 'pg';
import { identifier, inList, sql } from '../../lib/clickhouse/sql';

/**
 * What a DSP owes for an impression it won on our supply: the price in the
 * impression's token, but never above the auction's own record of the win (the
 * `auctions` table of the auction log). A token is signed, yet a leaked key or a
 * bug must not inflate what a publisher is told a DSP owes.
 *
 * The auction log reaches ClickHouse about a second after the auction, and a
 * pixel can be faster. An impression whose record is not there yet is held
 * (`delivery_export_held`) rather than holding up the whole export; each export
 * run looks again, and once `graceSeconds` have passed without a record the
 * impression is exported with no revenue (logged).
 */
export const AUCTIONS_TABLE = 'auctions';

/** The auction log's record of a win: which bidder, which bid, at what price (CPM micros). */
interface WinRecord {
  winner_bidder: string;
  winner_bid_id: string;
  price_micros: number;
}

/** A DSP impression as the ledger holds it: `price_micros` is the token's price of this one impression. */
export interface DspImpression {
  event_id: string;
  auction_id: string;
  dsp_id: string;
  bid_id: string;
  event_ms: string;
  price_micros: string;
}

/** The auction log's records of these impressions' auctions, by auction id. */
async function winRecords(ch: ClickHouseClient, database: string, impressions: DspImpression[], viewTokenTtlSeconds: number): Promise<Map<string, WinRecord>> {
  if (impressions.length === 0) return new Map();
  const times = impressions.map((r) => Number(r.event_ms));
  // An auction happens before its impression, by at most a view token's lifetime (and a minute of clock skew).
  const from = new Date(Math.min(...times) - (viewTokenTtlSeconds + 60) * 1000);
  const to = new Date(Math.max(...times) + 60_000);
  const result = await ch.query({
    query: `SELECT auction_id, winner_bidder, winner_bid_id, price_micros FROM ${identifier(database)}.${AUCTIONS_TABLE}
      WHERE ${sql`event_time >= ${from} AND event_time <= ${to}`} AND test = 0 AND auction_id IN ${inList([...new Set(impressions.map((r) => r.auction_id))])}`,
    format: 'JSONEachRow',
  });
  const records = new Map<string, WinRecord>();
  for (const r of await result.json<WinRecord & { auction_id: string }>()) records.set(r.auction_id, { ...r, price_micros: Number(r.price_micros) });
  return records;
}

/**
 * Each impression's revenue: min(token price, recorded price) when the auction
 * log records this DSP's bid as the winner, 0 when it records something else
 * (or nothing, once the grace has passed), undefined while it may still arrive.
 */
export async function verifiedRevenue(
  ch: ClickHouseClient,
  database: string,
  impressions: DspImpression[],
  opts: { viewTokenTtlSeconds: number; graceSeconds: number; now?: number },
): Promise<Map<string, number | undefined>> {
  const records = await winRecords(ch, database, impressions, opts.viewTokenTtlSeconds);
  const now = opts.now ?? Date.now();
  const revenue = new Map<string, number | undefined>();
  for (const r of impressions) {
    const record = records.get(r.auction_id);
    if (record) {
      const won = record.winner_bidder === r.dsp_id && record.winner_bid_id === r.bid_id;
      // The record's price is a CPM, the ledger's the price of one impression (charge.ts deliveryPriceMicros).
      revenue.set(r.event_id, won ? Math.min(Number(r.price_micros), Math.round(record.price_micros / 1000)) : 0);
      if (!won)
        console.error(
          JSON.stringify({ level: 'warn', msg: 'dsp impression does not match the auction log: no revenue', event_id: r.event_id, dsp_id: r.dsp_id }),
        );
    } else if (now - Number(r.event_ms) > opts.graceSeconds * 1000) {
      revenue.set(r.event_id, 0);
      console.error(JSON.stringify({ level: 'warn', msg: 'dsp impression without an auction record: no revenue', event_id: r.event_id, dsp_id: r.dsp_id }));
    } else revenue.set(r.event_id, undefined);
  }
  return revenue;
}

/** Holds ledger rows (as JSON) whose auction record has not arrived yet; `client` is in the exporter's transaction. */
export async function holdRows(client: PoolClient, rows: { event_id: string }[]): Promise<void> {
  if (rows.length === 0) return;
  await client.query(`INSERT INTO delivery_export_held (event_id, row) SELECT * FROM unnest($1::text[], $2::text[]) ON CONFLICT (event_id) DO NOTHING`, [
    rows.map((r) => r.event_id),
    rows.map((r) => JSON.stringify(r)),
  ]);
}

/** Held rows, oldest first. */
export async function heldRows<R>(client: PoolClient, limit: number): Promise<R[]> {
  const { rows } = await client.query<{ row: string }>('SELECT row FROM delivery_export_held ORDER BY held_at, event_id LIMIT $1', [limit]);
  return rows.map((r) => JSON.parse(r.row) as R);
}

export async function releaseHeld(client: PoolClient, eventIds: string[]): Promise<void> {
  if (eventIds.length > 0) await client.query('DELETE FROM delivery_export_held WHERE event_id = ANY($1::text[])', [eventIds]);
}
