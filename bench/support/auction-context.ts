import { randomUUID } from 'node:crypto';
import type { AuctionContext } from '../../auction/types';
import type { IndexedAd } from '../../auction/inhouse/ad-index';
import { newAdTally } from '../../auction/inhouse/tally';
import type { RelevanceProfile } from '../../domain/relevance/profile';
import { privacyDecision } from '../../domain/privacy';

/** An opener request from a fresh user as the in-house bidder sees it, for benches that call the bidder in process. */
export function benchAuctionContext(request: { country_code: string; ad_formats: string[] }): AuctionContext {
  return {
    auctionId: randomUUID(),
    startedAt: 0,
    deadlineAt: Infinity,
    tmaxMs: 2000,
    floorMicros: 0,
    blocks: { advertisers: new Set(), categories: [] },
    userIp: '',
    userAgent: '',
    audience: undefined,
    window: [],
    publisher: { publicId: 'bench', name: 'bench', tmaxMs: 2000 } as AuctionContext['publisher'],
    // No privacy signals: the personalized request, as before consent signals existed.
    privacy: privacyDecision({}, request.country_code, { teenContextualAds: false }),
    request: {
      userId: randomUUID(),
      request_type: 'opener',
      device: 'mobile',
      timezone: 'UTC',
      ...request,
      config: { max_headline_chars: 100, image_enabled: true },
    } as unknown as AuctionContext['request'],
  };
}

/** A servable in-house ad (active, approved, untargeted, a CPM bid of $1), one per ad group, for benches that call the bidder in process. */
export function benchServableAd(relevance: RelevanceProfile, creative: { title: string; body: string } = { title: 'Bench', body: 'Bench ad' }): IndexedAd {
  return {
    adId: randomUUID(),
    adGroupId: randomUUID(),
    campaignId: randomUUID(),
    organizationId: randomUUID(),
    adAccountId: randomUUID(),
    creativeType: 'chat_card',
    ...creative,
    cta: 'Shop',
    options: [],
    imageUrl: null,
    logoUrl: 'https://bench.example/logo.png',
    advertiser: 'Bench',
    domain: 'bench.example',
    clickUrl: 'https://bench.example/',
    countries: null,
    pricingModel: 'cpm',
    maxBidMicros: 1_000_000,
    relevance,
    campaignStatus: 'active',
    reviewStatus: 'approved',
    startTime: 0,
    endTime: null,
    adGroupStatus: 'active',
    adStatus: 'active',
    lifecycleState: null,
    tally: newAdTally(),
    pacing: { participation: 1 },
  };
}
