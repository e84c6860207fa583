import type { PublisherRecord } from '../../domain/publishers';
import { normalizeDomain } from '../../domain/publishers/settings';
import { BidRejection } from '../non-bid';
import type { AdRequest } from '../request-schema';
import type { Blocks, Creative, ValidBid } from '../types';

/**
 * A publisher's blocks (`adctl publisher update --block-advertisers /
 * --block-categories`), sent to DSPs as OpenRTB badv / bcat
 * (auction/dsp/openrtb.ts) and enforced on every answer, since a DSP may
 * ignore them: a bid whose advertiser domain or category is blocked is a
 * non-bid (blocked_advertiser, blocked_category); the in-house bidder skips
 * our own ads of a blocked domain (auction/inhouse/bidder.ts).
 */

/** The auction's blocks: the publisher's settings and the request's own bcat / badv (the publisher's lists as they are when the request adds none). */
export function blocksOf(publisher: Pick<PublisherRecord, 'blockedAdvertisers' | 'blockedCategories'>, request: Pick<AdRequest, 'bcat' | 'badv'>): Blocks {
  const advertisers = request.badv?.length ? new Set([...publisher.blockedAdvertisers, ...request.badv.map(normalizeDomain)]) : publisher.blockedAdvertisers;
  const categories = request.bcat?.length ? [...new Set([...publisher.blockedCategories, ...request.bcat])] : publisher.blockedCategories;
  return { advertisers, categories };
}

/** Whether `host` is a blocked domain or one of its subdomains (blocking shop.example blocks www.shop.example). */
export function isBlockedDomain(blocked: ReadonlySet<string>, host: string | null | undefined): boolean {
  if (blocked.size === 0 || !host) return false;
  let name = normalizeDomain(host);
  for (;;) {
    if (blocked.has(name)) return true;
    const dot = name.indexOf('.');
    if (dot < 0) return false;
    name = name.slice(dot + 1);
  }
}

/** A URL's host name, or null when it does not parse. */
export function hostOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).hostname;
  } catch {
    return null;
  }
}

/** Where a creative leads: its declared domain and every landing page's host. */
function creativeHosts(creative: Creative): (string | null | undefined)[] {
  if (creative.format === 'poll') return [hostOf(creative.cta_url)];
  if (creative.format === 'sponsored_carousel') return [creative.domain, ...creative.items.map((tile) => hostOf(tile.url))];
  return [creative.domain, hostOf(creative.url)];
}

/** Throws the non-bid when the publisher blocks the bid's advertiser or category; checked again once a rendered bid has its creative. */
export function assertNotBlocked(blocks: Blocks, bid: ValidBid): void {
  const blockedCategory = bid.cat?.find((c) => blocks.categories.includes(c));
  if (blockedCategory !== undefined) throw new BidRejection('blocked_category', `the publisher blocks category ${blockedCategory}`);
  if (blocks.advertisers.size === 0) return;
  const hosts = [...(bid.adomain ?? []), ...(bid.creative ? creativeHosts(bid.creative) : [])];
  const blocked = hosts.find((host) => isBlockedDomain(blocks.advertisers, host));
  if (blocked) throw new BidRejection('blocked_advertiser', `the publisher blocks advertiser domain ${blocked}`);
}
