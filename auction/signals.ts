import { textEncoder } from '../domain/understanding/encoder';
import { conversationSignals, loadLanguageDetector, warmSignals, type ConversationSignals } from '../domain/understanding/signals';
import { readConversation } from './inhouse/relevance';
import type { AuctionContext } from './types';

/** Before the auction serves: the language detector (WebAssembly) loaded, the category terms and vectors built. */
export async function loadSignals(): Promise<void> {
  await loadLanguageDetector();
  warmSignals(textEncoder());
}

/**
 * What every bidder is told the conversation is about (docs/signals.md), made
 * once per auction from its conversation window, after the bot check and
 * before the screen: the OpenRTB request carries it (auction/dsp/openrtb.ts)
 * and the auction log keeps its categories and language. The relevance
 * reading it uses is the in-house bidder's (its message cache is shared).
 * An opener has no conversation: only the header's language.
 */
export function signalsOf(ctx: Pick<AuctionContext, 'window' | 'headerLanguage'>): ConversationSignals {
  const messages = ctx.window;
  if (!messages.length) return conversationSignals({ messages, acceptLanguage: ctx.headerLanguage });
  try {
    return conversationSignals({ messages, view: readConversation(messages), encoder: textEncoder(), acceptLanguage: ctx.headerLanguage });
  } catch (err) {
    // A fault here must not cost the auction its demand: the bid requests go out without our signals (logged, at most once a minute).
    const now = Date.now();
    if (now - lastFault > 60_000) {
      lastFault = now;
      console.error(`auction: conversation signals failed, bid requests go without them: ${(err as Error).message}`);
    }
    return conversationSignals({ messages: [], acceptLanguage: ctx.headerLanguage });
  }
}

let lastFault = 0;
