import { randomUUID } from 'node:crypto';
import { pollOptionsOf } from '../../domain/polls/service';
import { headlineLimit } from '../request-schema';
import type { AuctionContext, Creative, ValidBid } from '../types';
import type { IndexedAd } from './ad-index';
import { bidCpmMicros, DEFAULT_CPC_MICROS, isServable, type BudgetGate, type CtrEstimator } from './eligibility';
import { conversationTerms, relevance, RELEVANCE_THRESHOLD } from './relevance';

/**
 * The in-house bidder: our advertisers' best eligible ad for this request, from
 * the in-memory index (no I/O). Eligible = servable now (isServable), budget
 * open, country targeted (or untargeted), a format the request accepts, and
 * relevant to the conversation (openers skip relevance).
 */
export interface InhouseDeps { budget: BudgetGate; ctr: CtrEstimator }

/** Cut to `max` characters at a word boundary when one is near, with an ellipsis. */
export function truncateHeadline(text: string, max: number): string {
  const chars = [...text];
  if (chars.length <= max) return text;
  const cut = chars.slice(0, max - 1).join('');
  // Already at a word's end, or back to the last space when it is not too far.
  if (chars[max - 1] === ' ') return `${cut.trimEnd()}…`;
  const space = cut.lastIndexOf(' ');
  return `${(space >= max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** The creative this ad would serve as for this request, or null when no offered format fits. */
export function creativeFor(ad: IndexedAd, ctx: AuctionContext): Creative | null {
  const req = ctx.request;
  const max = headlineLimit(req, 'native');
  if (!ad.clickUrl) return null;
  if (ad.creativeType === 'poll') {
    if (!req.ad_formats.includes('poll')) return null;
    return {
      format: 'poll',
      question: truncateHeadline(ad.title, max),
      options: pollOptionsOf(ad.options),
      cta_url: ad.clickUrl,
      advertiser: ad.advertiser,
      ...(ad.logoUrl ? { logo_url: ad.logoUrl } : {}),
    };
  }
  if (!req.ad_formats.includes('sponsored_message')) return null;
  // chat_card: image placement when it has an image and images are on, else text placement with the account's logo.
  const image = ad.imageUrl && req.config.image_enabled ? ad.imageUrl : null;
  if (!image && !ad.logoUrl) return null;
  return {
    format: 'sponsored_message',
    placement: image ? 'image' : 'text',
    headline: truncateHeadline(ad.title, max),
    ...(ad.body ? { description: ad.body } : {}),
    url: ad.clickUrl,
    advertiser: ad.advertiser,
    ...(ad.domain ? { domain: ad.domain } : {}),
    cta_text: ad.cta ?? 'Learn more',
    ...(image ? { image_url: image } : {}),
    ...(ad.logoUrl ? { logo_url: ad.logoUrl } : {}),
  };
}

export const INHOUSE_BIDDER = { id: 'inhouse', name: 'inhouse' } as const;

export function inhouseBid(ctx: AuctionContext, ads: readonly IndexedAd[], deps: InhouseDeps, now = Date.now()): ValidBid | null {
  const req = ctx.request;
  // The conversation's terms, computed once and only when an ad gets as far as relevance.
  let conversation: Map<string, number> | undefined;
  const terms = () => (conversation ??= conversationTerms(req.messages ?? []));
  let best: ValidBid | null = null;
  let ties = 0;
  for (const ad of ads) {
    if (!isServable(ad, now) || !deps.budget.mayServe(ad.campaignId)) continue;
    if (ad.countries && !ad.countries.has(req.country_code)) continue;
    if (req.request_type !== 'opener' && relevance(ad.hints, terms()) < RELEVANCE_THRESHOLD) continue;
    const price = bidCpmMicros(ad.pricingModel, ad.maxBidMicros, deps.ctr.ctr(ad.adGroupId));
    if (best && price < best.priceMicros) continue;
    const creative = creativeFor(ad, ctx);
    if (!creative) continue;
    // Ties at random (reservoir sampling over equal prices).
    if (best && price === best.priceMicros) { ties += 1; if (Math.random() * (ties + 1) >= 1) continue; } else ties = 0;
    best = {
      bidderId: INHOUSE_BIDDER.id, bidderName: INHOUSE_BIDDER.name, kind: 'inhouse', bidId: randomUUID(), priceMicros: price, creative,
      inhouse: {
        adId: ad.adId, adGroupId: ad.adGroupId, campaignId: ad.campaignId, organizationId: ad.organizationId, adAccountId: ad.adAccountId, pricingModel: ad.pricingModel,
        ...(ad.pricingModel === 'cpc' ? { cpcMicros: ad.maxBidMicros ?? DEFAULT_CPC_MICROS } : {}),
      },
    };
  }
  return best;
}
