import { ConversationReader, type ConversationView } from '../understanding/conversation';
import { textEncoder } from '../understanding/encoder';
import { relevanceProfile, type RelevanceProfile } from './profile';
import { featuresOf, relevanceOf, type Features } from './score';

/**
 * Relevance as an advertiser or an operator asks about it (the hint test of
 * `POST /v1/ad_groups/{id}/test_relevance` and `adctl relevance`): the same
 * profile, conversation reader and score as the auction's in-house bidder
 * (auction/inhouse/), so what they answer is what the auction would decide.
 */

/** An ad's copy as a profile reads it, as the auction's index makes it: its title and body (a poll's question alone). */
export const adCopy = (creative: { title: string; body?: string | null }): string => `${creative.title}. ${creative.body ?? ''}`;

/** An ad group's profile from its hints and its ad's creative (the text model loads on first use). */
export const adGroupProfile = (hints: readonly string[], creative: { title: string; body?: string | null }): RelevanceProfile =>
  relevanceProfile(textEncoder(), { hints, copy: adCopy(creative) });

let reader: ConversationReader | undefined;

/** The process's conversation reader (its message cache is shared by every call). */
export function readConversation(messages: readonly { role: string; content: string }[]): ConversationView {
  return (reader ??= new ConversationReader(textEncoder())).read(messages);
}

/** Scores and signals are shown to 4 decimals; `relevant` is decided on the exact score, as the auction does. */
const round = (x: number) => Math.round(x * 1e4) / 1e4;

export interface RelevanceVerdict {
  relevance: number;
  relevant: boolean;
  min_relevance: number;
  signals: Features;
}

/** One group's score against a conversation, with the signals the score is made of (docs/relevance.md). */
export function relevanceVerdict(view: ConversationView, profile: RelevanceProfile, minRelevance: number): RelevanceVerdict {
  const features = featuresOf(view, profile);
  const relevance = relevanceOf(view, profile);
  const signals = Object.fromEntries(Object.entries(features).map(([name, value]) => [name, round(value)])) as Features;
  return { relevance: round(relevance), relevant: relevance >= minRelevance, min_relevance: minRelevance, signals };
}

export interface RankedGroup {
  ad_group_id: string;
  relevance: number;
  eligible: boolean;
}

/**
 * The groups ranked by relevance to a conversation, best first: every group at
 * or above `minRelevance` (eligible: the auction would let its ads bid), then
 * the best `below` under it (not eligible), so a near miss shows how near.
 */
export function rankAdGroups(
  view: ConversationView,
  groups: readonly { id: string; profile: RelevanceProfile }[],
  minRelevance: number,
  below = 3,
): RankedGroup[] {
  const scored = groups.map((g) => ({ id: g.id, score: relevanceOf(view, g.profile) })).sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const eligible = scored.filter((s) => s.score >= minRelevance);
  const near = scored.slice(eligible.length, eligible.length + below);
  return [...eligible, ...near].map((s) => ({ ad_group_id: s.id, relevance: round(s.score), eligible: s.score >= minRelevance }));
}
