import type { ClickHouseClient } from '@clickhouse/client';
import { createClickhouse } from '../../lib/clickhouse/client';
import { sql } from '../../lib/clickhouse/sql';
import { NON_BID_REASONS, type NonBidReason } from '../non-bid';

/**
 * `adctl dsp report`: per bidder, bids, wins and non-bid reasons with counts
 * (and their IAB seat-non-bid codes), from the auction log in ClickHouse
 * (through `client` when given, else a client of its own). Sandbox
 * publishers' auctions are left out: nothing a DSP is reconciled on counts them.
 */
export async function dspReport(opts: { dspId?: string; since?: Date }, client?: ClickHouseClient) {
  const clickhouse = client ?? createClickhouse();
  try {
    const since = opts.since ?? new Date(Date.now() - 7 * 86_400_000);
    const dspFilter = opts.dspId ? sql` AND bidder_id = ${opts.dspId}` : '';
    const query =
      sql`SELECT bidder_id, any(bidder_name) AS bidder_name, outcome, reason, count() AS n, avg(latency_ms) AS avg_latency_ms
      FROM auction_bids WHERE event_time >= ${since} AND test = 0` +
      dspFilter +
      ' GROUP BY bidder_id, outcome, reason ORDER BY bidder_id, n DESC';
    const rows = await (
      await clickhouse.query({ query, format: 'JSONEachRow' })
    ).json<{
      bidder_id: string;
      bidder_name: string;
      outcome: string;
      reason: string;
      n: number;
      avg_latency_ms: number;
    }>();
    const byBidder = new Map<
      string,
      { dsp_id: string; name: string; requests: number; bids: number; wins: number; non_bids: { reason: string; code: number; count: number }[] }
    >();
    for (const r of rows) {
      const entry = byBidder.get(r.bidder_id) ?? { dsp_id: r.bidder_id, name: r.bidder_name, requests: 0, bids: 0, wins: 0, non_bids: [] };
      const n = Number(r.n);
      entry.requests += n;
      if (r.outcome === 'won' || r.outcome === 'lost') entry.bids += n;
      if (r.outcome === 'won') entry.wins += n;
      if (r.reason) entry.non_bids.push({ reason: r.reason, code: NON_BID_REASONS[r.reason as NonBidReason] ?? 0, count: n });
      byBidder.set(r.bidder_id, entry);
    }
    return { since: since.toISOString(), dsps: [...byBidder.values()] };
  } finally {
    if (!client) await clickhouse.close();
  }
}
