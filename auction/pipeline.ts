import type { BidCache } from './bid-cache';
import type { Catalog } from './catalog';
import type { DspHealth } from './dsp/health';
import { inhouseBid, INHOUSE_BIDDER, type InhouseDeps } from './inhouse/bidder';
import type { AuctionLog } from './log/writer';
import type { AuctionMetrics } from './metrics';
import { seatNonBidCode } from './non-bid';
import type { AuctionSettings } from './settings';
import { planDspCalls } from './stages/2-bidder-requests';
import { callDsps } from './stages/3-call-bidders';
import { validateDspAnswers } from './stages/4-validate-bids';
import { rankBids } from './stages/5-auction';
import { renderWinner } from './stages/6-render';
import { presentAd } from './stages/7-response';
import type { AuctionContext, BidRecord, ValidBid } from './types';

/**
 * One auction, stage by stage (as Prebid Server's exchange does):
 *   1 intake (route)  2 plan bidder calls  3 call bidders with a deadline
 *   4 validate bids   5 rank (first price) 6 render (with fallback)  7 response
 * then metrics and the ClickHouse log, both off the answer's path.
 */
export interface PipelineDeps {
  catalog: Catalog;
  health: DspHealth;
  cache: BidCache;
  log: AuctionLog;
  metrics: AuctionMetrics;
  settings: AuctionSettings;
  inhouse: InhouseDeps;
}

export async function runAuction(ctx: AuctionContext, deps: PipelineDeps) {
  const { calls, skipped } = planDspCalls(ctx, deps.catalog.dsps, deps.health, deps.settings);
  const dspAnswersPromise = callDsps(ctx, calls, deps.settings.fanOutConcurrency);

  // The in-house bidder runs from memory while the DSP calls are in flight.
  const inhouseStarted = performance.now();
  const own = inhouseBid(ctx, deps.catalog.ads, deps.inhouse);
  const inhouseMs = performance.now() - inhouseStarted;
  const records: BidRecord[] = [...skipped];
  const valid: ValidBid[] = [];
  if (own && own.priceMicros < ctx.floorMicros) {
    records.push({ bidderId: INHOUSE_BIDDER.id, bidderName: INHOUSE_BIDDER.name, kind: 'inhouse', bidId: own.bidId, priceMicros: own.priceMicros, outcome: 'rejected', reason: 'below_floor', detail: 'in-house bid below the floor', latencyMs: inhouseMs, adId: own.inhouse?.adId, campaignId: own.inhouse?.campaignId });
  } else if (own) {
    valid.push(own);
  } else {
    records.push({ bidderId: INHOUSE_BIDDER.id, bidderName: INHOUSE_BIDDER.name, kind: 'inhouse', bidId: null, priceMicros: null, outcome: 'rejected', reason: 'no_bid', detail: 'no eligible ad', latencyMs: inhouseMs });
  }

  const answers = await dspAnswersPromise;
  const slowestCallMs = answers.reduce((max, a) => Math.max(max, a.latencyMs), 0);
  const checked = validateDspAnswers(ctx, answers, deps.cache);
  records.push(...checked.records);
  valid.push(...checked.valid);

  const ranked = rankBids(valid);
  const rendered = await renderWinner(ctx, ranked, deps.cache, deps.settings);
  records.push(...rendered.failed);
  const winner = rendered.winner;
  const dropped = new Set(rendered.failed.map((r) => `${r.bidderId}\u0000${r.bidId}`));
  const latencyOf = new Map(answers.map((a) => [a.call.dsp.id, a.latencyMs]));
  for (const bid of ranked) {
    if (dropped.has(`${bid.bidderId}\u0000${bid.bidId}`)) continue;
    records.push({
      bidderId: bid.bidderId, bidderName: bid.bidderName, kind: bid.kind, bidId: bid.bidId, priceMicros: bid.priceMicros,
      outcome: winner && bid.bidderId === winner.bidderId && bid.bidId === winner.bidId ? 'won' : 'lost', reason: null, detail: null,
      latencyMs: bid.kind === 'inhouse' ? inhouseMs : latencyOf.get(bid.bidderId) ?? 0, adId: bid.inhouse?.adId, campaignId: bid.inhouse?.campaignId,
    });
  }

  const ad = winner ? presentAd(ctx, winner) : null;
  const elapsed = performance.now() - ctx.startedAt;
  observe(ctx, deps, records, answers.map((a) => ({ dsp: a.call.dsp.id, ms: a.latencyMs })), elapsed, slowestCallMs + rendered.renderMs, winner, ad?.format ?? null);
  return { auction_id: ctx.auctionId, ad };
}

function observe(
  ctx: AuctionContext, deps: PipelineDeps, records: BidRecord[], calls: { dsp: string; ms: number }[],
  elapsed: number, waitedMs: number, winner: ValidBid | null, format: string | null,
) {
  const m = deps.metrics;
  m.auctions.inc({ result: winner ? 'filled' : 'no_fill' });
  m.duration.observe(elapsed);
  m.overhead.observe(Math.max(0, elapsed - waitedMs));
  for (const c of calls) m.dspLatency.observe({ dsp: c.dsp }, c.ms);
  for (const r of records) {
    if (r.kind !== 'inhouse' && r.outcome !== 'rejected') deps.health.record(r.bidderId, null);
    if (r.reason) {
      m.nonBids.inc({ bidder: r.bidderId, reason: r.reason, code: String(seatNonBidCode(r.reason)) });
      if (r.kind !== 'inhouse' && r.latencyMs > 0) deps.health.record(r.bidderId, r.reason);
      if (r.reason === 'timeout') m.timeouts.inc({ dsp: r.bidderId });
      if (r.reason === 'dsp_http_error' || r.reason === 'unreachable' || r.reason === 'invalid_response' || r.reason === 'render_failed') m.errors.inc({ dsp: r.bidderId });
    }
    m.bids.inc({ bidder: r.bidderId, outcome: r.outcome });
  }
  deps.log.record(ctx, winner, records, elapsed, format);
}
