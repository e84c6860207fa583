import type { Bidder, PlanLimits } from '../bidders/bidder';
import { bidRecord } from '../bidders/bidder';
import type { DspHealth } from '../dsp/health';
import type { AuctionSettings } from '../settings';
import type { AuctionContext, BidRecord } from '../types';

/**
 * Stage 2, build bidder requests: which bidders this auction calls, and with
 * how long each (each bidder's own plan: auction/bidders/). A bidder that is
 * not called is recorded with its reason.
 */
export interface BidderCall {
  bidder: Bidder;
  timeoutMs: number;
}

export function planBidders(
  ctx: AuctionContext,
  bidders: readonly Bidder[],
  health: DspHealth,
  settings: AuctionSettings,
  now = performance.now(),
): { calls: BidderCall[]; skipped: BidRecord[] } {
  const limits: PlanLimits = { settings, health, now };
  const calls: BidderCall[] = [];
  const skipped: BidRecord[] = [];
  for (const bidder of bidders) {
    const plan = bidder.plan(ctx, limits);
    if (plan.call) calls.push({ bidder, timeoutMs: plan.timeoutMs });
    else skipped.push(bidRecord(bidder, 'rejected', { reason: plan.reason, detail: plan.detail, latencyMs: 0 }));
  }
  return { calls, skipped };
}
