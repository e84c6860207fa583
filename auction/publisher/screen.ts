import { classify, type SensitiveCategory } from '../../domain/safety';
import { audienceKeysOf, type ConversationAds } from '../inhouse/frequency-caps';
import type { AuctionContext } from '../types';

/**
 * Before any bidder is called, the chat host's side of the auction decides
 * whether there is an auction at all:
 * - the conversation's sensitive categories (domain/safety): a `never` or
 *   `block` category (after the publisher's overrides) means no auction and
 *   `sensitive_conversation`; otherwise the categories travel to DSPs as
 *   site.cat / app.cat;
 * - the publisher's conversation density: `nAdsBefore` or our own count of
 *   ads shown in the `chatId` at the maximum, or fewer user turns than the
 *   minimum since the last ad, means `conversation_limit`.
 */
export type ScreenOutcome =
  { noFill: null } | { noFill: 'sensitive_conversation'; categories: SensitiveCategory[]; detail: string } | { noFill: 'conversation_limit'; detail: string };

/** What the screen reads of the shared frequency replica (auction/inhouse/frequency-caps.ts). */
export interface ConversationLedger {
  conversationAds(keys: ReturnType<typeof audienceKeysOf>, now: number): ConversationAds;
}

export function screenRequest(ctx: AuctionContext, conversations: ConversationLedger | undefined, now = Date.now()): ScreenOutcome {
  const messages = ctx.window;
  if (messages.length) {
    // The call `adctl safety explain` makes too (domain/safety/index.ts).
    const { categories, policy, refused, siteCat } = classify(messages, ctx.publisher.safetyOverrides);
    if (categories.length > 0) {
      if (policy !== 'allow') return { noFill: 'sensitive_conversation', categories: refused, detail: `${policy}: ${refused.join(', ')}` };
      ctx.safety = { categories, siteCat };
    }
  }
  const limit = conversationLimit(ctx, conversations, now);
  return limit ? { noFill: 'conversation_limit', detail: limit } : { noFill: null };
}

function conversationLimit(ctx: AuctionContext, conversations: ConversationLedger | undefined, now: number): string | null {
  const { maxAdsPerConversation: max, minTurnsBetweenAds: minTurns } = ctx.publisher;
  const req = ctx.request;
  if ((max === null && minTurns <= 0) || req.request_type === 'opener' || !req.chatId) return null;
  if (max !== null && (req.nAdsBefore ?? 0) >= max) return `nAdsBefore ${req.nAdsBefore ?? 0} reaches the publisher's maximum of ${max} ads per conversation`;
  if (!conversations) return null;
  const shown = conversations.conversationAds(audienceKeysOf(ctx), now);
  if (max !== null && shown.ads >= max) return `${shown.ads} ads shown in this conversation reach the publisher's maximum of ${max}`;
  if (minTurns > 0 && shown.ads > 0) {
    const turns = turnsSince(req.messages ?? [], shown.lastTurnMark);
    if (turns < minTurns) return `${turns} turns since the last ad, the publisher's minimum is ${minTurns}`;
  }
  return null;
}

/** FNV-1a over the text, as a non-zero 32-bit signed integer (0 means "no mark"). */
function hashText(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h | 0 || 1;
}

/** The turn an ad is shown at: a hash of the conversation's last user message (0 when it has none). */
export function turnMarkOf(messages: readonly { role: string; content: string }[] | undefined): number {
  for (let i = (messages?.length ?? 0) - 1; i >= 0; i -= 1) if (messages![i].role === 'user') return hashText(messages![i].content);
  return 0;
}

/**
 * User turns since the turn marked: the user messages after the latest one
 * with that mark. When the request's messages no longer reach back to it, at
 * least as many turns have passed as there are user messages (Infinity: the
 * minimum is met), so a host that sends a short window is never stuck.
 */
export function turnsSince(messages: readonly { role: string; content: string }[], mark: number): number {
  if (mark === 0) return Infinity;
  let turns = 0;
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    if (messages[i].role !== 'user') continue;
    if (hashText(messages[i].content) === mark) return turns;
    turns += 1;
  }
  return Infinity;
}
