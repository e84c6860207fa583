/**
 * Every reason a bid does not win, as ONE enum (Prebid Server's seat non-bid
 * model): our spec's names where the spec has one, each beside the IAB
 * seat-non-bid status code (OpenRTB community extension "Seat Non Bid"):
 * 0-99 no bid, 100-199 error, 200-299 request not sent, 300-399 response rejected.
 * A bid that was valid but was outbid is not a non-bid: its outcome is `lost`.
 */
export const NON_BID_REASONS = {
  /** The bidder answered in time without a bid (`data: {}`, 204, `{}`, empty seatbid, `nbr`). */
  no_bid: 0,
  /**
   * The in-house bidder's own no-bids, by the furthest any of our ads got
   * (domain/serving/eligibility.ts): a spent budget, no ad targeting the
   * request's country, none relevant to the conversation, or no creative that
   * fits (no landing page, no format offered, no image or logo), or held back
   * by a frequency cap or by pacing. Code 0: no bid.
   */
  budget_exhausted: 0,
  not_targeted: 0,
  not_relevant: 0,
  no_landing_url: 0,
  no_image_or_logo: 0,
  frequency_capped: 0,
  paced: 0,
  /** HTTP status other than 200/204 from the bid endpoint. */
  dsp_http_error: 100,
  /** The render call failed (non-200, e.g. 404 for an expired bid) or its body was not JSON. */
  render_failed: 100,
  /** No answer before the bidder's cut-off (bid or render). */
  timeout: 101,
  /** Not JSON, or not the protocol's response shape (bid missing, bidId missing, wrong id echo). */
  invalid_response: 102,
  /** Connection refused / reset / DNS failure. */
  unreachable: 103,
  /** Not called: less than the minimum time was left for it. */
  insufficient_time: 200,
  /** Not called: none of the request's ad_formats is one this bidder serves. */
  format_not_supported: 202,
  /** Not called: the DSP keeps failing and is backed off for a while. */
  dsp_backed_off: 203,
  /** Not sent: the ad request's input could not be put into the call (a header value HTTP refuses); never the DSP's failure. */
  invalid_request: 200,
  /**
   * Not called: the user gave no consent this DSP can bid with (contextual only, or no consent for its
   * TCF vendor id where GDPR applies) and it declared it cannot bid without consent (domain/privacy).
   */
  no_consent: 200,
  /** Price below the floor (the higher of the platform's and the publisher's). */
  below_floor: 301,
  /**
   * The publisher blocks the bid's advertiser domain (badv: adomain, the
   * creative's domain or its landing page's host, subdomains included); for our
   * own ads, the in-house bidder skips them. Code 300: response rejected, general.
   */
  blocked_advertiser: 300,
  /** The publisher blocks one of the bid's IAB categories (bcat, OpenRTB `cat`). */
  blocked_category: 300,
  /** ad_data or render creative: unknown fields, wrong types, missing required fields (spec name). */
  invalid_ad_data: 350,
  /** OpenRTB: asset 1, 2, 3 or 6 missing. */
  missing_required_asset: 350,
  /** Headline, description, sponsored-by or CTA longer than allowed. */
  asset_too_long: 350,
  /** Carousel rules: exactly 3 tiles, one brand, unique urls, images on every tile. */
  invalid_carousel: 350,
  /** OpenRTB: an image smaller than the asset's wmin/hmin. */
  image_too_small: 351,
  /** A non-HTTPS URL where `secure` is 1. */
  not_secure: 352,
  /** sponsored_message without `placement` (spec name). */
  dsp_missing_placement: 353,
  /** placement `image` without `image_url`, or an image bid where images are off (spec name). */
  dsp_invalid_image_bid: 353,
  /** placement `text` without `logo_url`, or an OpenRTB text slot answered without a logo (spec name). */
  dsp_invalid_text_bid: 353,
  /** The creative's ad_format is not one the request offered. */
  format_not_offered: 353,
} as const;

export type NonBidReason = keyof typeof NON_BID_REASONS;
export const NON_BID_NAMES = Object.keys(NON_BID_REASONS) as NonBidReason[];
export const seatNonBidCode = (reason: NonBidReason): number => NON_BID_REASONS[reason];

/** Thrown by validators; carries one reason and a human detail for logs and `adctl dsp check`. */
export class BidRejection extends Error {
  constructor(
    readonly reason: NonBidReason,
    detail: string,
  ) {
    super(detail);
    this.name = 'BidRejection';
  }
}
