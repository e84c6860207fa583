import type { IndexedAd } from '../inhouse/ad-index';
import { INHOUSE_BIDDER, inhouseBid, type InhouseDeps } from '../inhouse/bidder';
import type { AuctionContext, ValidBid } from '../types';
import type { Bidder, BidderAnswer } from './bidder';

/**
 * Our own advertisers' best eligible ad (auction/inhouse/bidder.ts), from the
 * in-memory index: always called, answered from memory while the DSP calls are
 * in flight; its bid is valid as made.
 */
export function inhouseBidder(ads: () => readonly IndexedAd[], deps: InhouseDeps): Bidder<ValidBid> {
  return {
    id: INHOUSE_BIDDER.id, name: INHOUSE_BIDDER.name, kind: 'inhouse', local: true,
    plan: () => ({ call: true, timeoutMs: 0 }),
    async call(ctx: AuctionContext): Promise<BidderAnswer<ValidBid>> {
      const bid = inhouseBid(ctx, ads(), deps);
      return bid ? { status: 'bid', raw: bid } : { status: 'no_bid', detail: 'no eligible ad' };
    },
    validate: (_ctx, bid) => bid,
    named: (bid) => ({ bidId: bid.bidId, priceMicros: bid.priceMicros }),
  };
}
