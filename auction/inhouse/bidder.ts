import { randomUUID } from 'node:crypto';
import { pollOptionsOf } from '../../domain/polls/service';
import { headlineLimit } from '../request-schema';
import type { AuctionContext, Creative, ValidBid } from '../types';
import type { IndexedAd } from './ad-index';
import { creativeBlock, INHOUSE_SKIPS, servingBlock, type InhouseSkip } from '../../domain/serving/eligibility';
import { bidCpmMicros, DEFAULT_CPC_MICROS, type BudgetGate, type CtrEstimator } from './eligibility';
import { count, countOutbid, noteRelevance } from './tally';
import { winningAdvertiser } from '../../domain/serving/traffic';
import { audienceKeysOf, type FrequencyCaps } from './frequency-caps';
import { admits, type PacingGate } from './pacing-gate';
import { readConversation, relevanceIndexOf } from './relevance';
import { DEFAULT_MIN_RELEVANCE, relevanceOf } from '../../domain/relevance/score';
import type { RelevanceProfile } from '../../domain/relevance/profile';
import { hostOf, isBlockedDomain } from '../publisher/blocks';

/**
 * The in-house bidder: our advertisers' best eligible ad for this request, from
 * the in-memory index (no I/O). Eligible = servable now and budget open
 * (domain/serving/eligibility.ts), country targeted (or untargeted), relevant
 * to the conversation (openers skip relevance), and a creative that fits the
 * request. Every ad passed over is counted with its reason (tally.ts).
 */
export interface InhouseDeps {
  budget: BudgetGate;
  ctr: CtrEstimator;
  /** Even pacing (pacing-gate.ts: each ad carries its campaign's plan); absent: every campaign bids on every eligible request. */
  pacing?: Pick<PacingGate, 'participationOf'>;
  /** Frequency caps (frequency-caps.ts); absent: none. */
  caps?: Pick<FrequencyCaps, 'checkFor' | 'hold' | 'release' | 'recordWin' | 'enabled' | 'conversationAds'>;
}

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

/** The creative an eligible ad serves as for this request (creativeBlock said it fits). */
export function creativeFor(ad: IndexedAd, ctx: AuctionContext): Creative {
  const req = ctx.request;
  const max = headlineLimit(req, 'native');
  const url = ad.clickUrl!;
  if (ad.creativeType === 'poll') {
    return {
      format: 'poll',
      question: truncateHeadline(ad.title, max),
      options: pollOptionsOf(ad.options),
      cta_url: url,
      advertiser: ad.advertiser,
      ...(ad.logoUrl ? { logo_url: ad.logoUrl } : {}),
    };
  }
  // chat_card: image placement when it has an image and images are on, else text placement with the account's logo.
  const image = ad.imageUrl && req.config.image_enabled ? ad.imageUrl : null;
  return {
    format: 'sponsored_message',
    placement: image ? 'image' : 'text',
    headline: truncateHeadline(ad.title, max),
    ...(ad.body ? { description: ad.body } : {}),
    url,
    advertiser: ad.advertiser,
    ...(ad.domain ? { domain: ad.domain } : {}),
    cta_text: ad.cta ?? 'Learn more',
    ...(image ? { image_url: image } : {}),
    ...(ad.logoUrl ? { logo_url: ad.logoUrl } : {}),
  };
}

export const INHOUSE_BIDDER = { id: 'inhouse', name: 'inhouse' } as const;

export interface InhouseResult {
  bid: ValidBid | null;
  /** Every eligible ad (for the tally of who won and who was outbid); empty when none. */
  eligible: IndexedAd[];
  /** Without a bid: how far the furthest ad got (null when no ad could serve at all). */
  skip: InhouseSkip | null;
}

export function inhouseBid(ctx: AuctionContext, ads: readonly IndexedAd[], deps: InhouseDeps, now = Date.now()): InhouseResult {
  const req = ctx.request;
  // A sandbox publisher gets no sponsored poll: its votes would count for our advertiser.
  const formats = ctx.publisher.test ? req.ad_formats.filter((f) => f !== 'poll') : req.ad_formats;
  const offer = { formats, imageEnabled: req.config.image_enabled };
  // Openers (no conversation yet) skip relevance: every servable ad competes on price.
  const opener = req.request_type === 'opener';
  const view = opener ? null : readConversation(ctx.window);
  // Only the ad groups retrieval finds near the conversation are looked at (auction/inhouse/relevance.ts).
  const pool = view ? relevanceIndexOf(ads).candidates(view) : ads;
  const minRelevance = ctx.publisher.minRelevance ?? DEFAULT_MIN_RELEVANCE;
  // Scored once per ad group, and only when one of its ads gets as far as relevance.
  const scores = new Map<RelevanceProfile, number>();
  const relevanceFor = (ad: IndexedAd): number => {
    if (!view) return 1;
    let score = scores.get(ad.relevance);
    if (score === undefined) {
      score = relevanceOf(view, ad.relevance);
      scores.set(ad.relevance, score);
    }
    return score;
  };
  const capped = cappedFor(ctx, deps, now);
  const paced = deps.pacing ? (ad: IndexedAd) => !admits(ad.pacing) : () => false;
  const blocked = blockedFor(ctx);
  // A sandbox publisher's auctions count nothing toward our advertisers' diagnostics.
  const tally = ctx.publisher.test ? () => {} : count;
  let best: IndexedAd | null = null;
  let bestPrice = 0;
  let bestRank = 0;
  let bestRelevance = 0;
  let ties = 0;
  let furthest = -1;
  const eligible: IndexedAd[] = [];
  for (const ad of pool) {
    // State (paused, scheduled, ...) is not counted: the diagnostics read it from the database.
    if (servingBlock(ad, now) !== null) continue;
    const skip = !deps.budget.mayServe(ad.campaignId)
      ? 'budget_exhausted'
      : ad.countries && !ad.countries.has(req.country_code)
        ? 'not_targeted'
        : relevanceFor(ad) < minRelevance
          ? 'not_relevant'
          : blocked(ad)
            ? 'blocked_advertiser'
            : (creativeBlock(ad, offer) ?? (capped(ad.campaignId) ? 'frequency_capped' : paced(ad) ? 'paced' : null));
    if (skip) {
      tally(ad.tally, skip);
      if (skip === 'not_relevant' && !ctx.publisher.test) noteRelevance(ad.tally, relevanceFor(ad));
      furthest = Math.max(furthest, INHOUSE_SKIPS.indexOf(skip));
      continue;
    }
    tally(ad.tally, 'eligible');
    eligible.push(ad);
    const price = bidCpmMicros(ad.pricingModel, ad.maxBidMicros, deps.ctr.ctr(ad.adGroupId));
    // Price and relevance together (docs/relevance.md): the rank is the bid times the relevance; the winner pays its own bid.
    const rank = price * relevanceFor(ad);
    if (best && rank < bestRank) continue;
    // Ties at random (reservoir sampling over equal ranks).
    if (best && rank === bestRank) {
      ties += 1;
      if (Math.random() * (ties + 1) >= 1) continue;
    } else ties = 0;
    best = ad;
    bestPrice = price;
    bestRank = rank;
    bestRelevance = view ? relevanceFor(ad) : NaN;
  }
  return { bid: best && bidOf(ctx, best, bestPrice, bestRelevance), eligible, skip: furthest >= 0 ? INHOUSE_SKIPS[furthest] : null };
}

function bidOf(ctx: AuctionContext, ad: IndexedAd, priceMicros: number, relevance: number): ValidBid {
  return {
    bidderId: INHOUSE_BIDDER.id,
    bidderName: INHOUSE_BIDDER.name,
    kind: 'inhouse',
    bidId: randomUUID(),
    priceMicros,
    creative: creativeFor(ad, ctx),
    inhouse: {
      adId: ad.adId,
      adGroupId: ad.adGroupId,
      campaignId: ad.campaignId,
      organizationId: ad.organizationId,
      adAccountId: ad.adAccountId,
      pricingModel: ad.pricingModel,
      // NaN for an opener: no conversation to be relevant to.
      relevance,
      ...(ad.pricingModel === 'cpc' ? { cpcMicros: ad.maxBidMicros ?? DEFAULT_CPC_MICROS } : {}),
    },
  };
}

/** The request's frequency-cap check, its keys hashed and its history looked up once, when an ad first gets that far. */
function cappedFor(ctx: AuctionContext, deps: InhouseDeps, now: number): (campaignId: string) => boolean {
  const caps = deps.caps;
  if (!caps?.enabled) return () => false;
  let check: ((campaignId: string) => boolean) | null | undefined;
  return (campaignId) => {
    if (check === undefined) check = caps.checkFor(audienceKeysOf(ctx), now);
    return check !== null && check(campaignId);
  };
}

/** The publisher's advertiser-domain blocks over our ads: the ad's website and its landing page's host. */
function blockedFor(ctx: AuctionContext): (ad: IndexedAd) => boolean {
  const blocked = ctx.blocks.advertisers;
  if (blocked.size === 0) return () => false;
  return (ad) => isBlockedDomain(blocked, ad.domain) || isBlockedDomain(blocked, hostOf(ad.clickUrl));
}

/** Tallies an auction's outcome for the eligible ads: the winner won, the others were outbid by the winning price. */
export function tallyOutcome(eligible: readonly IndexedAd[], winner: ValidBid | null): void {
  if (!winner) return;
  for (const ad of eligible) {
    if (winner.inhouse?.adId === ad.adId) count(ad.tally, 'won');
    else countOutbid(ad.tally, winner.priceMicros, winningAdvertiser(winner));
  }
}
