/**
 * The rules that decide whether one of our ads may serve: the in-house bidder
 * applies them per request (auction/inhouse/bidder.ts) and the delivery
 * diagnostics (diagnostics.ts) read them back to say why an ad does not serve.
 * One copy of each rule, so the explanation can never disagree with delivery.
 * In PostgreSQL the same rules are `serving_block` (eligibility.sql, beside this
 * file), which the auction's index load and the charge (domain/delivery/charge.sql)
 * call; test/serving/servability.test.ts holds both to the same answers.
 */

/** An ad's state as far as serving is concerned (campaign, ad group, ad). */
export interface ServableFacts {
  campaignStatus: string;
  reviewStatus: string;
  startTime: number;
  endTime: number | null;
  adGroupStatus: string;
  adStatus: string;
  /** completed | blocked (domain/campaigns/lifecycle.ts): never serves again; null while live. */
  lifecycleState: string | null;
  /** Why the lifecycle ended: `ended`, `budget_exhausted`, or a reviewer's reason for a block. */
  lifecycleReason?: string | null;
  /** Spend has reached the lifetime limit (the auction's index drops such campaigns when it loads). */
  budgetExhausted?: boolean;
}

/** Why an ad cannot serve at all, whatever the request: its own state or its parents'. */
export type ServingBlock =
  'blocked' | 'rejected' | 'not_approved' | 'archived' | 'campaign_paused' | 'ended' | 'budget_exhausted' | 'scheduled' | 'ad_group_paused' | 'ad_paused';

/** In order: the first failing rule is the one the bidder reports. */
const SERVING_RULES: readonly (readonly [ServingBlock, (ad: ServableFacts, now: number) => boolean])[] = [
  ['blocked', (ad) => ad.lifecycleState === 'blocked'],
  ['rejected', (ad) => ad.reviewStatus === 'rejected'],
  ['not_approved', (ad) => ad.reviewStatus !== 'approved' && ad.reviewStatus !== 'rejected'],
  ['archived', (ad) => ad.campaignStatus === 'archived'],
  ['campaign_paused', (ad) => ad.campaignStatus !== 'active' && ad.campaignStatus !== 'archived'],
  ['ended', (ad, now) => (ad.lifecycleState === 'completed' && ad.lifecycleReason !== 'budget_exhausted') || (ad.endTime !== null && ad.endTime <= now)],
  ['budget_exhausted', (ad) => (ad.lifecycleState === 'completed' && ad.lifecycleReason === 'budget_exhausted') || ad.budgetExhausted === true],
  ['scheduled', (ad, now) => ad.startTime > now],
  ['ad_group_paused', (ad) => ad.adGroupStatus !== 'active'],
  ['ad_paused', (ad) => ad.adStatus !== 'active'],
];

/** The first reason this ad cannot serve now, or null when it may. */
export function servingBlock(ad: ServableFacts, now: number): ServingBlock | null {
  for (const [code, fails] of SERVING_RULES) if (fails(ad, now)) return code;
  return null;
}

/** Every reason this ad cannot serve now (empty when it may). */
export function servingBlocks(ad: ServableFacts, now: number): ServingBlock[] {
  return SERVING_RULES.filter(([, fails]) => fails(ad, now)).map(([code]) => code);
}

export const isServable = (ad: ServableFacts, now: number): boolean => servingBlock(ad, now) === null;

/**
 * The blocks an ad stays in the auction's index with (auction/inhouse/ad-index.ts): a start
 * time still to come (it passes with no change to reload on) and the ad group's or ad's own
 * status, which the bidder checks per request. Any other block leaves the ad out of the index.
 */
export const INDEXED_BLOCKS: readonly ServingBlock[] = ['scheduled', 'ad_group_paused', 'ad_paused'];

/** What a creative needs to be shown for a request. */
export interface CreativeFacts {
  creativeType: 'chat_card' | 'poll';
  /** Where a click goes (landingUrlOf); null: nowhere, so it cannot serve. */
  clickUrl: string | null;
  imageUrl: string | null;
  logoUrl: string | null;
}

/** What a request offers a creative. */
export interface PlacementOffer {
  formats: readonly string[];
  imageEnabled: boolean;
}

/** Why a servable ad's creative cannot be shown for this request. */
export type CreativeBlock = 'no_landing_url' | 'format_not_offered' | 'no_image_or_logo';

/**
 * The creative rules: a landing page (chat cards and poll CTAs alike), a format
 * the request offers, and for a chat card an image (when images are on) or the
 * account's logo (text placement).
 */
export function creativeBlock(ad: CreativeFacts, offer: PlacementOffer): CreativeBlock | null {
  if (!ad.clickUrl) return 'no_landing_url';
  if (!offer.formats.includes(ad.creativeType === 'poll' ? 'poll' : 'sponsored_message')) return 'format_not_offered';
  if (ad.creativeType === 'chat_card' && !(ad.imageUrl && offer.imageEnabled) && !ad.logoUrl) return 'no_image_or_logo';
  return null;
}

/** A website as a URL: `shoes.example` -> `https://shoes.example`. */
export function asUrl(value: string | null | undefined): string | null {
  if (!value) return null;
  return /^https?:\/\//i.test(value) ? value : `https://${value}`;
}

/** Where a click on an ad goes: the creative's target URL, else the ad account's website, else the organization's domain. */
export function landingUrlOf(
  targetUrl: string | null | undefined,
  accountUrl: string | null | undefined,
  organizationDomain: string | null | undefined,
): string | null {
  return asUrl(targetUrl) ?? asUrl(accountUrl ?? organizationDomain);
}

/**
 * Why the in-house bidder passed over an ad in one auction (counted per ad,
 * auction/inhouse/tally.ts): the serving and creative rules, then the
 * request-dependent ones, and `outbid` for an eligible ad that did not win.
 * `eligible` and `won` are counted beside them so shares can be computed.
 * The skips are in the order the in-house bidder checks them: the furthest an
 * ad got is its no-bid reason.
 */
export const INHOUSE_SKIPS = [
  'budget_exhausted',
  'not_targeted',
  'not_relevant',
  'blocked_advertiser',
  'no_landing_url',
  'format_not_offered',
  'no_image_or_logo',
  'frequency_capped',
  'paced',
] as const;
export type InhouseSkip = (typeof INHOUSE_SKIPS)[number];
export const INHOUSE_OUTCOMES = [...INHOUSE_SKIPS, 'eligible', 'won', 'outbid'] as const;
export type InhouseOutcome = (typeof INHOUSE_OUTCOMES)[number];
/** An outcome's slot in a tally (a Uint32Array per ad). */
export const OUTCOME_SLOT = Object.fromEntries(INHOUSE_OUTCOMES.map((o, i) => [o, i])) as Record<InhouseOutcome, number>;
