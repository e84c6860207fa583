import type { Deadline } from '../dsp/http';
import type { DspHealth } from '../dsp/health';
import type { NonBidReason } from '../non-bid';
import type { AuctionSettings } from '../settings';
import type { AuctionContext, BidderKind, BidRecord, Creative, ValidBid } from '../types';

/**
 * One bidder of an auction, as Prebid Server's adapters are: everything that
 * differs between the in-house bidder, a native DSP and an OpenRTB DSP lives
 * behind this interface, so the stages (auction/stages/) loop over bidders and
 * never ask which kind they hold.
 */
export type BidderAnswer<Raw> =
  | { status: 'bid'; raw: Raw }
  /** `reason`: why a bidder of ours did not bid (the in-house bidder's skips); a DSP's no-bid is plain `no_bid`. */
  | { status: 'no_bid'; detail: string; reason?: NonBidReason }
  | { status: 'failed'; reason: NonBidReason; detail: string };

export type BidderPlan = { call: true; timeoutMs: number } | { call: false; reason: NonBidReason; detail: string };

/** What a plan is made against: the auction's settings, the bidders' health, the clock. */
export interface PlanLimits {
  settings: AuctionSettings;
  health: DspHealth;
  now: number;
}

export interface Bidder<Raw = unknown> {
  readonly id: string;
  readonly name: string;
  readonly kind: BidderKind;
  /** Answers from memory (no call over the network): it takes no fan-out slot and no deadline. */
  readonly local?: boolean;
  /** Stage 2: whether it is called in this auction, and with how long. */
  plan(ctx: AuctionContext, limits: PlanLimits): BidderPlan;
  /** Stage 3: its request and answer; transport failures are thrown (CallFailure, BidRejection). */
  call(ctx: AuctionContext, deadline: Deadline | null): Promise<BidderAnswer<Raw>>;
  /** Stage 4: the answer as a bid (price in micros, creative checked or null for render); throws BidRejection. */
  validate(ctx: AuctionContext, raw: Raw): ValidBid;
  /** The bid id and price an answer named, for the log of a bid that failed validation. */
  named(raw: Raw): { bidId: string | null; priceMicros: number | null };
  /** Stage 6: the creative of a bid that came without one. */
  render?(ctx: AuctionContext, bid: ValidBid, timeoutMs: number): Promise<Creative>;
  /** After the auction: what the bidder learns from its outcome (the in-house bidder tallies who won and who was outbid). */
  settle?(ctx: AuctionContext, winner: ValidBid | null): void;
}

/** The one place a bid record is built (what is logged, counted and reported per bidder). */
export function bidRecord(
  bidder: Pick<Bidder, 'id' | 'name' | 'kind'>,
  outcome: BidRecord['outcome'],
  fields: { latencyMs: number; bidId?: string | null; priceMicros?: number | null; reason?: NonBidReason; detail?: string; inhouse?: ValidBid['inhouse'] },
): BidRecord {
  return {
    bidderId: bidder.id,
    bidderName: bidder.name,
    kind: bidder.kind,
    bidId: fields.bidId ?? null,
    priceMicros: fields.priceMicros ?? null,
    outcome,
    reason: fields.reason ?? null,
    detail: fields.detail ?? null,
    latencyMs: fields.latencyMs,
    ...(fields.inhouse ? { adId: fields.inhouse.adId, campaignId: fields.inhouse.campaignId } : {}),
  };
}
