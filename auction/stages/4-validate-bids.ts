import type { BidCache } from '../bid-cache';
import { bidRecord } from '../bidders/bidder';
import { BidRejection } from '../non-bid';
import { assertNotBlocked } from '../publisher/blocks';
import type { AuctionContext, BidRecord, ValidBid } from '../types';
import type { Answer } from './3-call-bidders';

/**
 * Stage 4, validate bids: each bidder checks its own answer (price: >= 0,
 * banker's rounding to cents; the creative by its protocol), then the
 * publisher's blocks (auction/publisher/blocks.ts) and the floor.
 * Bids without a creative are cached for render. Every answer that is not a
 * valid bid becomes a record with one reason.
 */
export function validateBids(ctx: AuctionContext, answers: readonly Answer[], cache: BidCache): { valid: ValidBid[]; records: BidRecord[] } {
  const valid: ValidBid[] = [];
  const records: BidRecord[] = [];
  for (const answer of answers) {
    const { bidder, latencyMs } = answer;
    if (answer.status !== 'bid') {
      const reason = answer.status === 'no_bid' ? (answer.reason ?? 'no_bid') : answer.reason;
      records.push(bidRecord(bidder, 'rejected', { reason, detail: answer.detail, latencyMs }));
      continue;
    }
    try {
      const bid = bidder.validate(ctx, answer.raw);
      assertNotBlocked(ctx.blocks, bid);
      if (bid.priceMicros < ctx.floorMicros) {
        records.push(
          bidRecord(bidder, 'rejected', {
            bidId: bid.bidId,
            priceMicros: bid.priceMicros,
            reason: 'below_floor',
            detail: `bid ${bid.priceMicros / 1e6} is below the floor ${ctx.floorMicros / 1e6}`,
            latencyMs,
            inhouse: bid.inhouse,
          }),
        );
        continue;
      }
      if (bid.creative === null) cache.put(bid);
      valid.push(bid);
    } catch (err) {
      if (!(err instanceof BidRejection)) throw err;
      records.push(bidRecord(bidder, 'rejected', { ...bidder.named(answer.raw), reason: err.reason, detail: err.message, latencyMs }));
    }
  }
  return { valid, records };
}
