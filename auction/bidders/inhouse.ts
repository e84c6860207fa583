import type { IndexedAd } from '../inhouse/ad-index';
import { INHOUSE_BIDDER, inhouseBid, tallyOutcome, type InhouseDeps } from '../inhouse/bidder';
import { audienceKeysOf } from '../inhouse/frequency-caps';
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
  // Each auction's bid held toward the frequency caps (FrequencyCaps.hold), until its outcome is known.
  const heldIn = new WeakMap<AuctionContext, ValidBid>();
  const caps = deps.caps;
  return {
    id: INHOUSE_BIDDER.id,
    name: INHOUSE_BIDDER.name,
    kind: 'inhouse',
    local: true,
    plan: () => ({ call: true, timeoutMs: 0 }),
    async call(ctx: AuctionContext): Promise<BidderAnswer<ValidBid>> {
      const { bid, eligible, skip } = inhouseBid(ctx, ads(), deps);
      if (eligible.length) eligibleIn.set(ctx, eligible);
      if (bid && caps?.enabled && !ctx.publisher.test) {
        // Checked and held in one synchronous step: a concurrent auction of this user sees it at once.
        caps.hold(audienceKeysOf(ctx), bid.inhouse!.campaignId, ctx.auctionId);
        heldIn.set(ctx, bid);
      }
      if (bid) return { status: 'bid', raw: bid };
      return skip ? { status: 'no_bid', reason: skip, detail: `no eligible ad (furthest: ${skip})` } : { status: 'no_bid', detail: 'no servable ad' };
    },
    settle(ctx, winner) {
      const eligible = eligibleIn.get(ctx);
      if (eligible && !ctx.publisher.test) tallyOutcome(eligible, winner);
      const held = heldIn.get(ctx);
      // The winner is counted by the pipeline's recordWin under the same auction id; a lost bid stops counting.
      if (held && winner?.bidId !== held.bidId) caps!.release(audienceKeysOf(ctx), held.inhouse!.campaignId, ctx.auctionId);
    },
    validate: (_ctx, bid) => bid,
    named: (bid) => ({ bidId: bid.bidId, priceMicros: bid.priceMicros }),
  };
}
