import { whyThisAd } from '../../domain/privacy/why-this-ad';
import { baseClaims, deliveryUrls, pollUrls, withViewUrl } from '../tracking';
import type { AuctionContext, Creative, ValidBid } from '../types';

/**
 * Stage 7, response: the winning creative in DESIGN's chat-host shape, every
 * URL the user touches replaced by our signed tracking URL (the DSP's own
 * trackers travel inside the tokens), the price as a CPM in USD, and `why_this_ad`
 * (our extension: from the conversation's topic and the privacy decision only, domain/privacy/why-this-ad.ts).
 */
export function presentAd(
  ctx: Pick<AuctionContext, 'auctionId' | 'publisher' | 'request'> & Partial<Pick<AuctionContext, 'signals' | 'privacy'>>,
  bid: ValidBid & { creative: Creative },
) {
  const trackingUrl = deliveryUrls(baseClaims(ctx, bid));
  const why_this_ad = whyThisAd(ctx.signals?.categories ?? [], ctx.privacy?.personalized ?? true);
  const auctionId = ctx.auctionId;
  const c = bid.creative;
  const price = bid.priceMicros / 1_000_000;
  if (c.format === 'poll') {
    const view = trackingUrl('view');
    return {
      format: 'poll' as const,
      question: c.question,
      options: c.options,
      // Polls are our advertisers' (in-house) ads only.
      ...pollUrls(auctionId, bid.inhouse!.adId),
      ...(c.cta_url ? { cta_url: trackingUrl('click', { url: c.cta_url }) } : {}),
      ...(c.logo_url ? { logo_url: c.logo_url } : {}),
      view_url: view,
      url: trackingUrl('click', { url: c.cta_url }),
      feedback_url: trackingUrl('feedback'),
      advertiser: c.advertiser,
      price,
      why_this_ad,
    };
  }
  const view = trackingUrl('view', c.view_url ? { dsp_view_url: c.view_url } : undefined);
  const feedback = trackingUrl('feedback', c.feedback_url ? { dsp_feedback_url: c.feedback_url } : undefined);
  const click = (url: string, tile?: number) => trackingUrl('click', { url: withViewUrl(url, c.view_url), tile });
  if (c.format === 'sponsored_carousel') {
    const items = c.items.map((tile, i) => ({ ...tile, url: click(tile.url, i) }));
    return {
      format: c.format,
      items,
      ...(c.advertiser ? { advertiser: c.advertiser } : {}),
      ...(c.domain ? { domain: c.domain } : {}),
      ...(c.logo_url ? { logo_url: c.logo_url } : {}),
      view_url: view,
      url: items[0].url,
      feedback_url: feedback,
      price,
      why_this_ad,
    };
  }
  // The DSP's own view and feedback URLs are replaced by ours (they travel inside the tokens).
  return { ...c, url: click(c.url), view_url: view, feedback_url: feedback, price, why_this_ad };
}
