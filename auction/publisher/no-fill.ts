import type { SensitiveCategory } from '../../domain/safety';
import type { BidRecord } from '../types';

/**
 * Why the chat host got no ad (`no_fill_reason`, DESIGN's response shape):
 * decided before the auction (invalid_traffic, minor, sensitive_conversation, conversation_limit:
 * auction/publisher/screen.ts) or from its bids, the most telling first:
 * bids refused by the publisher's blocks, bids under the floor, bidders cut
 * by the deadline, else no bids at all.
 */
export const NO_FILL_REASONS = [
  'no_bids',
  'sensitive_conversation',
  'conversation_limit',
  'below_floor',
  'timeout',
  'blocked_advertiser',
  'blocked_category',
  // The request's user agent is a known bot or crawler (domain/delivery/invalid-traffic.ts): no auction.
  'invalid_traffic',
  // The user is a minor (domain/privacy): under 13 or COPPA, or 13-17 where the publisher allows no contextual ads. No auction.
  'minor',
] as const;
export type NoFillReason = (typeof NO_FILL_REASONS)[number];

export interface NoFill {
  reason: NoFillReason;
  /** sensitive_conversation: the categories that ruled the ad out. */
  categories?: SensitiveCategory[];
}

const FROM_BIDS: readonly [NoFillReason, (r: BidRecord) => boolean][] = [
  ['blocked_advertiser', (r) => r.reason === 'blocked_advertiser'],
  ['blocked_category', (r) => r.reason === 'blocked_category'],
  ['below_floor', (r) => r.reason === 'below_floor'],
  ['timeout', (r) => r.reason === 'timeout' || r.reason === 'insufficient_time'],
];

export function noFillFromBids(records: readonly BidRecord[]): NoFill {
  for (const [reason, matches] of FROM_BIDS) if (records.some(matches)) return { reason };
  return { reason: 'no_bids' };
}

/** The answer's no-fill fields (none when an ad was served). */
export function noFillFields(noFill: NoFill | null) {
  if (!noFill) return {};
  return { no_fill_reason: noFill.reason, ...(noFill.categories ? { sensitive_categories: noFill.categories } : {}) };
}
