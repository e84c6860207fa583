import { randomUUID } from 'node:crypto';
import type { AuctionContext } from '../../auction/types';
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
