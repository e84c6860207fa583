import { randomUUID } from 'node:crypto';
import type { AuctionContext, Creative, ValidBid } from '../types';

/**
 * A sandbox publisher (`adctl publisher create --test`): its auctions run the
 * whole pipeline (DSPs get OpenRTB `test: 1`), and when nothing bid the
 * answer still has an ad, this clearly marked test creative, so an
 * integration can be built end to end. Its tracking tokens carry `test`, and
 * the trackers record nothing for them: nothing is billed or counted in any
 * advertiser's insights, frequency caps or pacing.
 */
export const SANDBOX_BIDDER = { id: 'sandbox', name: 'sandbox' } as const;
const LANDING_PAGE = 'https://example.com/adplatform-sandbox';

function testCreative(ctx: AuctionContext): Creative | null {
  const formats = ctx.request.ad_formats;
  if (formats.includes('sponsored_message'))
    return {
      format: 'sponsored_message',
      placement: 'text',
      headline: 'Test ad: your integration works',
      description: 'A sandbox publisher always gets an ad. Nothing is billed or counted.',
      url: LANDING_PAGE,
      advertiser: 'Test advertiser (sandbox)',
      domain: 'example.com',
      cta_text: 'Learn more',
    };
  if (formats.includes('sponsored_carousel'))
    return {
      format: 'sponsored_carousel',
      advertiser: 'Test advertiser (sandbox)',
      domain: 'example.com',
      items: [1, 2, 3].map((n) => ({ headline: `Test ad ${n} of 3`, image_url: `${LANDING_PAGE}/tile-${n}.png`, url: `${LANDING_PAGE}/tile-${n}` })),
    };
  // A sponsored poll is our advertisers' own ad (its votes are counted for them): no test poll.
  return null;
}

/** The test creative's bid (price 0), or null when the request offers only polls. */
export function sandboxBid(ctx: AuctionContext): (ValidBid & { creative: Creative }) | null {
  const creative = testCreative(ctx);
  if (!creative) return null;
  return { bidderId: SANDBOX_BIDDER.id, bidderName: SANDBOX_BIDDER.name, kind: 'inhouse', bidId: randomUUID(), priceMicros: 0, creative };
}
