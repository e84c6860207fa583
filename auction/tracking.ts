import { signToken } from '../lib/signed-token';
import { mintPollTokens } from '../domain/polls/poll-token';
import { auctionSettings } from './settings';
import type { ValidBid } from './types';

/**
 * Signed tracking URLs handed to the chat host. The endpoints belong to the
 * api's {tracking_url} (delivery tracking and poll tracking issues); each token
 * carries everything they need, so they never look the auction up. Payload
 * shape (README "Tracking tokens"):
 *   kind        'view' | 'click' | 'feedback'   (poll vote/results URLs carry the poll
 *               token of domain/polls/poll-token.ts instead: pollUrls)
 *   auction_id  the auction
 *   publisher_id  publisher public id
 *   price_micros  clearing price, CPM micros (first price = the winning bid)
 *   source      'inhouse' | 'dsp'
 *   ad_id, ad_group_id, campaign_id, organization_id, pricing_model   (in-house)
 *   dsp_id, bid_id                                                    (DSP)
 *   dsp_view_url?      the DSP's own impression pixel      (view)
 *   dsp_feedback_url?  the DSP's feedback_url               (feedback)
 *   url                destination (click: the DSP's click tracker with our view
 *                      URL appended as `view_url`, or the advertiser's page)
 *   tile?              carousel tile index (click)
 *   exp                Unix seconds (lib/signed-token.ts)
 */
export const TRACKING_PATHS = {
  view: '/api/v1/tracking/view',
  click: '/api/v1/tracking/click',
  feedback: '/api/v1/tracking/feedback',
  poll_vote: '/api/v1/tracking/sponsored-polls/vote',
  poll_results: '/api/v1/tracking/sponsored-polls/results',
} as const;
export type TrackingKind = keyof typeof TRACKING_PATHS;

export function baseClaims(auctionId: string, publisherPublicId: string, bid: ValidBid) {
  const claims: Record<string, unknown> = { auction_id: auctionId, publisher_id: publisherPublicId, price_micros: bid.priceMicros };
  if (bid.inhouse) {
    Object.assign(claims, {
      source: 'inhouse', ad_id: bid.inhouse.adId, ad_group_id: bid.inhouse.adGroupId, campaign_id: bid.inhouse.campaignId,
      organization_id: bid.inhouse.organizationId, pricing_model: bid.inhouse.pricingModel,
    });
  } else {
    Object.assign(claims, { source: 'dsp', dsp_id: bid.bidderId, bid_id: bid.bidId });
  }
  return claims;
}

export function trackingUrl(kind: TrackingKind, claims: Record<string, unknown>, ttlSeconds = auctionSettings.trackingTtlSeconds): string {
  const token = signToken({ kind, ...claims }, ttlSeconds);
  return `${auctionSettings.trackingUrl}${TRACKING_PATHS[kind]}?token=${token}`;
}

/** A delivered poll's `vote_url` and `results_url`: tokens minted by the poll-tracking owner. */
export function pollUrls(auctionId: string, adId: string, ttlSeconds = auctionSettings.trackingTtlSeconds) {
  const { voteToken, resultsToken } = mintPollTokens({ adId, auctionId, ttlSeconds });
  return {
    vote_url: `${auctionSettings.trackingUrl}${TRACKING_PATHS.poll_vote}?token=${voteToken}`,
    results_url: `${auctionSettings.trackingUrl}${TRACKING_PATHS.poll_results}?token=${resultsToken}`,
  };
}

/** The spec: the SSP appends `view_url` as a query parameter to the DSP's click URL. */
export function withViewUrl(clickUrl: string, viewUrl: string | undefined): string {
  if (!viewUrl) return clickUrl;
  const url = new URL(clickUrl);
  url.searchParams.append('view_url', viewUrl);
  return url.toString();
}
