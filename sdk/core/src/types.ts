/**
 * The chat-host answer of `POST {auction_url}/v1/ad_requests` (DESIGN.md, Chat-host API;
 * docs/api-behaviour.md), as the browser core reads it.
 */
export interface MessageAd {
  format: 'sponsored_message';
  placement: 'image' | 'text';
  headline: string;
  description?: string;
  url: string;
  advertiser: string;
  domain?: string;
  cta_text: string;
  image_url?: string | null;
  logo_url?: string;
  view_url: string;
  feedback_url: string;
  price?: number;
  /** Why this ad was chosen (the auction's extension: the conversation's topic, never personal data): the "Why this ad?" disclosure. */
  why_this_ad?: string;
}

export interface CarouselTile {
  headline: string;
  description?: string;
  image_url: string;
  url: string;
}

export interface CarouselAd {
  format: 'sponsored_carousel';
  items: CarouselTile[];
  advertiser?: string;
  domain?: string;
  logo_url?: string;
  view_url: string;
  url: string;
  feedback_url: string;
  price?: number;
  why_this_ad?: string;
}

export interface PollAd {
  format: 'poll';
  question: string;
  options: { id: string; text: string }[];
  vote_url: string;
  results_url: string;
  cta_url?: string;
  logo_url?: string;
  view_url: string;
  url: string;
  feedback_url: string;
  advertiser: string;
  price?: number;
  why_this_ad?: string;
}

export type Ad = MessageAd | CarouselAd | PollAd;

/** The auction's whole answer: `ad` null on no fill, with `no_fill_reason`; `test` for a sandbox publisher. */
export interface AdAnswer {
  auction_id: string;
  ad: Ad | null;
  no_fill_reason?: string;
  categories?: string[];
  test?: boolean;
}

/** The spec's poll results (document 2, Sponsored-poll tracking). */
export interface PollResults {
  status: string;
  data: { sponsored_poll_id: number; question: string; total_votes: number; options: { id: string; text: string; votes: number; percentage: number }[] };
}

export type Feedback = 'thumbs_up' | 'thumbs_down';
/** Why a thumbs down (the feedback tracker's fixed list). */
export type FeedbackReason = 'not_relevant' | 'offensive' | 'misleading' | 'repetitive' | 'other';

export type AdEvent =
  | { type: 'fill'; auction_id: string; format: Ad['format']; test: boolean }
  | { type: 'no_fill'; auction_id?: string; no_fill_reason: string }
  | { type: 'rendered'; auction_id: string; format: Ad['format'] }
  | { type: 'viewable'; auction_id: string }
  | { type: 'click'; auction_id: string; url: string; tile?: number }
  | { type: 'feedback'; auction_id: string; feedback: Feedback; reason?: FeedbackReason }
  | { type: 'vote'; auction_id: string; option_id: string; results: PollResults['data'] }
  | { type: 'error'; auction_id?: string; stage: string; message: string };

export interface RenderOptions {
  /** Every step the host may want: fill, no_fill, rendered, viewable, click, feedback, vote, error. */
  onEvent?: (event: AdEvent) => void;
  /** Logs each step to the console (`[chat-ads]`). */
  debug?: boolean;
  /** `auto` (default) follows prefers-color-scheme. */
  theme?: 'light' | 'dark' | 'auto';
  /** Show the thumbs up / down buttons (default true). */
  feedback?: boolean;
}

export interface AdHandle {
  /** Removes the ad and stops measuring it. */
  destroy(): void;
}
