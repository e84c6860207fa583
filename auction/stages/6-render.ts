import type { BidCache } from '../bid-cache';
import { bidRecord, type Bidder } from '../bidders/bidder';
import { CallFailure } from '../dsp/http';
import { BidRejection, type NonBidReason } from '../non-bid';
import { assertNotBlocked } from '../publisher/blocks';
import type { AuctionSettings } from '../settings';
import type { AuctionContext, BidRecord, Creative, ValidBid } from '../types';

/**
 * Stage 6, render: walk the ranking from the top; a bid with its creative wins
 * at once; a bid without one is rendered by its bidder (a native DSP's render
 * call with the realized price = its bid, first price), the answer validated
 * strictly. A failed render drops that bid and, while time remains, the next
 * one is tried.
 */
export interface RenderOutcome {
  winner: (ValidBid & { creative: Creative }) | null;
  failed: BidRecord[];
  renderMs: number;
}

export async function renderWinner(
  ctx: AuctionContext,
  ranked: readonly ValidBid[],
  bidderOf: (bid: ValidBid) => Bidder,
  cache: BidCache,
  settings: AuctionSettings,
): Promise<RenderOutcome> {
  const failed: BidRecord[] = [];
  let renderMs = 0;
  for (const bid of ranked) {
    if (bid.creative) return { winner: bid as ValidBid & { creative: Creative }, failed, renderMs };
    const bidder = bidderOf(bid);
    const fail = (reason: NonBidReason, detail: string, latencyMs: number) =>
      failed.push(bidRecord(bidder, 'rejected', { bidId: bid.bidId, priceMicros: bid.priceMicros, reason, detail, latencyMs }));
    const cached = cache.take(bid.bidderId, bid.bidId);
    if (!cached || !bidder.render) {
      fail('render_failed', cached ? 'the bidder cannot render' : 'bid no longer cached (expired)', 0);
      continue;
    }
    const timeoutMs = Math.floor(ctx.deadlineAt - performance.now() - settings.ownWorkReserveMs);
    if (timeoutMs < settings.minDspTimeMs) {
      fail('timeout', `no time left to render (${timeoutMs} ms)`, 0);
      continue;
    }
    const started = performance.now();
    try {
      const winner = { ...cached, creative: await bidder.render(ctx, cached, timeoutMs) };
      assertNotBlocked(ctx.blocks, winner);
      renderMs += performance.now() - started;
      return { winner, failed, renderMs };
    } catch (err) {
      const latencyMs = performance.now() - started;
      renderMs += latencyMs;
      if (err instanceof CallFailure) fail(err.reason === 'unreachable' || err.reason === 'timeout' ? err.reason : 'render_failed', err.message, latencyMs);
      else if (err instanceof BidRejection) fail(err.reason, `render: ${err.message}`, latencyMs);
      else throw err;
    }
  }
  return { winner: null, failed, renderMs };
}
