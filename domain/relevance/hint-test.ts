import { z } from 'zod';
import type { Db } from '../../lib/db';
import { contextHints } from '../campaigns/ad-group-schema';
import { findAdGroup } from '../campaigns/ad-groups';
import { servableCreative } from '../creatives/review';
import { CONVERSATION_WINDOW, conversationWindow } from '../understanding/conversation-window';
import { adGroupProfile, readConversation, relevanceVerdict, type RelevanceVerdict } from './ranking';
import { DEFAULT_MIN_RELEVANCE } from './score';

/**
 * `POST /v1/ad_groups/{id}/test_relevance` (docs/api-behaviour.md, "Relevance
 * test"): how relevant an ad group is to a conversation the advertiser posts,
 * scored as the auction's in-house bidder scores it. Nothing is saved.
 */

const { messages: MAX_MESSAGES, messageChars: MAX_MESSAGE_CHARS } = CONVERSATION_WINDOW;

const message = z.strictObject({
  role: z.enum(['user', 'assistant']),
  content: z.string().max(MAX_MESSAGE_CHARS),
});

export const relevanceTestSchema = z.strictObject({
  messages: z
    .array(message)
    .min(1)
    .max(MAX_MESSAGES)
    .describe(
      `The conversation, oldest first: 1 to ${MAX_MESSAGES} messages of at most ${MAX_MESSAGE_CHARS} characters each. ` +
        `As in the auction, only the newest ${CONVERSATION_WINDOW.totalChars} characters' worth of whole messages are read.`,
    ),
  context_hints: contextHints
    .min(1)
    .optional()
    .describe("Hints to try instead of the ad group's saved ones (not saved); validated as an ad group's context_hints"),
});
export type RelevanceTestInput = z.output<typeof relevanceTestSchema>;

export interface RelevanceTestResult extends RelevanceVerdict {
  ad_group_id: string;
  /** The hints scored: the ones sent, else the ad group's. */
  context_hints: string[];
  /** The ad whose creative was read with the hints (the one the auction reads), or null when the group has no ad. */
  ad_id: string | null;
}

/**
 * The copy the auction reads for a group: its first ad (by id) with an approved
 * creative, as the auction's index makes profiles. Before any review, the
 * first ad's current creative stands in for what will be approved.
 */
async function copyAdOf(db: Db, adGroupId: string) {
  const ads = await db.ad.findMany({
    where: { adGroupId },
    orderBy: { id: 'asc' },
    select: { id: true, title: true, body: true, approvedCreative: true },
  });
  for (const ad of ads) {
    const approved = servableCreative(ad);
    if (approved) return { id: ad.id, creative: approved };
  }
  return ads[0] ? { id: ads[0].id, creative: ads[0] } : null;
}

/** The organization's ad group scored against `input.messages` (404 `not_found` for any other id). */
export async function testAdGroupRelevance(db: Db, organizationId: string, id: unknown, input: RelevanceTestInput): Promise<RelevanceTestResult> {
  const adGroup = await findAdGroup(db, organizationId, id);
  const ad = await copyAdOf(db, adGroup.id);
  const hints = input.context_hints ?? adGroup.contextHints;
  const profile = adGroupProfile(hints, ad?.creative ?? { title: '' });
  const view = readConversation(conversationWindow(input.messages));
  return {
    ad_group_id: adGroup.id,
    ...relevanceVerdict(view, profile, DEFAULT_MIN_RELEVANCE),
    context_hints: hints,
    ad_id: ad?.id ?? null,
  };
}
