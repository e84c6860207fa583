import type { IndexedAd } from '../inhouse/ad-index';
import { INHOUSE_BIDDER, inhouseBid, tallyOutcome, type InhouseDeps } from '../inhouse/bidder';
import type { AuctionContext, ValidBid } from '../types';
import type { Bidder, BidderAnswer } from './bidder';

/**
 * Our own advertisers' best eligible ad (auction/inhouse/bidder.ts), from the
 * in-memory index: always called, answered from memory while the DSP calls are
 * in flight; its bid is valid as made.
 */
export function inhouseBidder(ads: () => readonly IndexedAd[], deps: InhouseDeps): Bidder<ValidBid> {
  // Each auction's eligible ads, until its outcome is known.
  const eligibleIn = new WeakMap<AuctionContext, IndexedAd[]>();
  return {
    id: INHOUSE_BIDDER.id,
    name: INHOUSE_BIDDER.name,
    kind: 'inhouse',
    local: true,
    plan: () => ({ call: true, timeoutMs: 0 }),
    async call(ctx: AuctionContext): Promise<BidderAnswer<ValidBid>> {
      const { bid, eligible, skip } = inhouseBid(ctx, ads(), deps);
      if (eligible.length) eligibleIn.set(ctx, eligible);
      if (bid) return { status: 'bid', raw: bid };
      return skip ? { status: 'no_bid', reason: skip, detail: `no eligible ad (furthest: ${skip})` } : { status: 'no_bid', detail: 'no servable ad' };
    },
    settle(ctx, winner) {
      const eligible = eligibleIn.get(ctx);
      if (eligible && !ctx.publisher.test) tallyOutcome(eligible, winner);
    },
    validate: (_ctx, bid) => bid,
    named: (bid) => ({ bidId: bid.bidId, priceMicros: bid.priceMicros }),
  };
}
