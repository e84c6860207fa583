import { mintPollTokens } from '../domain/polls/poll-token';
import { deliveryTokenSigner, TRACKING_PATHS, type DeliveryClaims, type DeliveryTokenKind, type OwnClaims } from '../domain/delivery/tracking-token';
import { trafficBinding } from '../domain/delivery/invalid-traffic';
import { auctionSettings } from './settings';
import type { AuctionContext, ValidBid } from './types';

export { withViewUrl } from '../domain/delivery/tracking-token';

/**
 * Signed tracking URLs handed to the chat host. The endpoints belong to the
 * api's {tracking_url} (api/tracking/delivery.ts, api/tracking/polls.ts); each
 * token carries everything they need (domain/delivery/tracking-token.ts), so
 * they never look the auction up.
 */
export type BaseClaims = Omit<DeliveryClaims, 'kind'>;

export function baseClaims(
  ctx: Pick<AuctionContext, 'auctionId' | 'publisher' | 'request' | 'audience'> & Partial<Pick<AuctionContext, 'userAgent' | 'userIp'>>,
  bid: ValidBid,
): BaseClaims {
  // One object literal of one shape, the absent claims undefined (the token's encoding leaves them out):
  // conditional spreads copy the object once per claim and give it many shapes, a large share of presenting an ad (bench/history.md, "auction").
  const audience = ctx.audience;
  const ad = bid.inhouse;
  const binding = trafficBinding(ctx.userAgent ?? '', ctx.userIp ?? '');
  return {
    auction_id: ctx.auctionId,
    publisher_id: ctx.publisher.publicId,
    price_micros: bid.priceMicros,
    country: ctx.request.country_code,
    device: ctx.request.device,
    // The showing's keys: its impression counts toward the caps (ours) and the conversation's density (any).
    // None for a contextual-only request (domain/privacy): no delivery row names the user.
    user_key: audience?.user || undefined,
    chat_key: audience?.chat || undefined,
    test: ctx.publisher.test ? true : undefined,
    source: ad ? 'inhouse' : 'dsp',
    ad_id: ad?.adId,
    ad_group_id: ad?.adGroupId,
    campaign_id: ad?.campaignId,
    organization_id: ad?.organizationId,
    ad_account_id: ad?.adAccountId,
    pricing_model: ad?.pricingModel as 'cpm' | 'cpc' | undefined,
    cpc_micros: ad?.cpcMicros,
    dsp_id: ad ? undefined : bid.bidderId,
    bid_id: ad ? undefined : bid.bidId,
    // Its pixels and clicks must come with this user agent from this network (domain/delivery/invalid-traffic.ts).
    ua_hash: binding.ua_hash,
    net: binding.net,
  };
}

const ttlOf = (kind: DeliveryTokenKind) => (kind === 'view' ? auctionSettings.viewTokenTtlSeconds : auctionSettings.clickTokenTtlSeconds);

/** The tracking URLs of one delivery: a token of each URL's kind, the shared claims encoded once for all of them. */
export function deliveryUrls(claims: BaseClaims): (kind: DeliveryTokenKind, own?: OwnClaims) => string {
  const sign = deliveryTokenSigner(claims);
  const base = auctionSettings.trackingUrl;
  return (kind, own) => `${base}${TRACKING_PATHS[kind]}?token=${sign(kind, own ?? null, ttlOf(kind))}`;
}

/** A delivered poll's `vote_url` and `results_url`: tokens minted by the poll-tracking owner. */
export function pollUrls(auctionId: string, adId: string, ttlSeconds = auctionSettings.clickTokenTtlSeconds) {
  const { voteToken, resultsToken } = mintPollTokens({ adId, auctionId, ttlSeconds });
  return {
    vote_url: `${auctionSettings.trackingUrl}${TRACKING_PATHS.poll_vote}?token=${voteToken}`,
    results_url: `${auctionSettings.trackingUrl}${TRACKING_PATHS.poll_results}?token=${resultsToken}`,
  };
}
