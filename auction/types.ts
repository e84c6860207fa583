import type { PrivacyDecision } from '../domain/privacy';
import type { PublisherRecord } from '../domain/publishers';
import type { SensitiveCategory } from '../domain/safety';
import type { NonBidReason } from './non-bid';
import type { AdRequest } from './request-schema';
import type { WindowMessage } from './conversation-window';
import type { ConversationSignals } from '../domain/understanding/signals';

/** The creative as the chat host receives it (DESIGN: Chat-host API), before tracking URLs are added. */
export interface MessageCreative {
  format: 'sponsored_message';
  placement: 'image' | 'text';
  headline: string;
  description?: string;
  url: string;
  advertiser: string;
  domain?: string;
  cta_text: string;
  image_url?: string;
  logo_url?: string;
  view_url?: string;
  feedback_url?: string;
}
export interface CarouselTile {
  headline: string;
  description?: string;
  image_url: string;
  url: string;
}
export interface CarouselCreative {
  format: 'sponsored_carousel';
  items: CarouselTile[];
  advertiser?: string;
  domain?: string;
  logo_url?: string;
  view_url?: string;
  feedback_url?: string;
}
export interface PollCreative {
  format: 'poll';
  question: string;
  options: { id: string; text: string }[];
  cta_url?: string;
  advertiser: string;
  logo_url?: string;
}
export type Creative = MessageCreative | CarouselCreative | PollCreative;

export interface Blocks {
  advertisers: ReadonlySet<string>;
  categories: readonly string[];
}

/** Everything one auction knows about its request. */
export interface AuctionContext {
  auctionId: string;
  startedAt: number;
  /** performance.now() time by which the chat host must have its answer. */
  deadlineAt: number;
  tmaxMs: number;
  request: AdRequest;
  /** The conversation every stage reads and forwards (auction/conversation-window.ts): the newest messages, bounded; empty for openers. */
  window: readonly WindowMessage[];
  publisher: PublisherRecord;
  /** The request's privacy decision (domain/privacy): minors, personalized or contextual only, GDPR; made once at intake. */
  privacy: Readonly<PrivacyDecision>;
  /** The user's IP: body `ip`, else the caller's address. */
  userIp: string;
  userAgent: string;
  /** Request Accept-Language, the fallback for device.language. */
  headerLanguage?: string;
  /** Floor (CPM micros) the bids must reach: the higher of the platform's and the publisher's. */
  floorMicros: number;
  /** Blocked advertiser domains (badv) and IAB categories (bcat): the publisher's and the request's own (auction/publisher/blocks.ts). */
  blocks: Blocks;
  /** The user's and conversation's hashed keys (frequency caps), once computed (auction/inhouse/frequency-caps.ts). */
  audience?: { publisherId: string; user: string; chat: string };
  /** The sensitive categories the conversation touches (domain/safety) and their tier-1 ids for site.cat / app.cat; set by the screen. */
  safety?: { categories: SensitiveCategory[]; siteCat: string[] };
  /** What the conversation is about, for bidders and the log (auction/signals.ts): set before the screen. */
  signals?: ConversationSignals;
}

export type BidderKind = 'inhouse' | 'native' | 'openrtb';

/** A bid that passed validation, ready for the auction. */
export interface ValidBid {
  bidderId: string;
  bidderName: string;
  kind: BidderKind;
  bidId: string;
  priceMicros: number;
  /** Null when the native DSP sent no ad_data: the creative comes from the render call. */
  creative: Creative | null;
  /** OpenRTB: the bid's advertiser domains and IAB categories (checked against the publisher's badv / bcat). */
  adomain?: string[];
  cat?: string[];
  /** In-house: which ad it is (delivery tracking needs it). */
  inhouse?: {
    adId: string;
    adGroupId: string;
    campaignId: string;
    organizationId: string;
    adAccountId: string;
    pricingModel: string;
    cpcMicros?: number;
    /** Its relevance to the conversation (domain/relevance/score.ts); NaN for an opener. */
    relevance: number;
  };
}

/** One bidder's outcome in one auction (what is logged per bid). */
export interface BidRecord {
  bidderId: string;
  bidderName: string;
  kind: BidderKind;
  bidId: string | null;
  priceMicros: number | null;
  outcome: 'won' | 'lost' | 'rejected';
  reason: NonBidReason | null;
  detail: string | null;
  latencyMs: number;
  adId?: string;
  campaignId?: string;
}
