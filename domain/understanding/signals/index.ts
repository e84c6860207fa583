import type { ConversationView } from '../conversation';
import type { TextEncoder } from '../encoder';
import { wordBudget } from '../encoder';
import { categoryProfiles, conversationCategories, termScores, type CategoryText } from './categories';
import { followUpContext, intentQuery, intentShape } from './intent';
import { candidatePhrases, rankKeywords, type WeightedText } from './keywords';
import { detectTextLanguage, headerLanguage } from './language';
import { scrubPii } from '../pii';
import { functionWords } from './words';

export { loadLanguageDetector, languageDetectorLoaded } from './language';

/** Builds what the first conversation would otherwise pay for (the terms' index; with an encoder, the categories' vectors). */
export function warmSignals(encoder?: TextEncoder): void {
  termScores([{ text: 'warm', weight: 1 }]);
  if (encoder) categoryProfiles(encoder);
}
export { scrubPii } from '../pii';
export { MAX_KEYWORDS } from './keywords';
export { MAX_QUERY_CHARS } from './intent';

/**
 * What a bidder is told a conversation is about (docs/signals.md): the intent
 * query (site/app.search), keywords, content categories (cat, cattax 7) and
 * the language (device.language). Pure functions of the conversation window;
 * personal data is cut out of every text before any signal is made of it.
 */
export interface ConversationSignals {
  /** The user's current request as a standalone query; '' when it asks for nothing. */
  search: string;
  /** At most MAX_KEYWORDS phrases, most relevant first. */
  keywords: string[];
  /** IAB Content Taxonomy 3.0 ids: tier-1 best first, then confident tier-2. */
  categories: string[];
  /** ISO 639-1: detected from the conversation, else the Accept-Language header's; undefined when neither. */
  language?: string;
  languageSource?: 'conversation' | 'header';
}

/** The newest messages read (as the relevance reading), each its first MESSAGE_CHARS characters. */
export const SIGNAL_MESSAGES = 8;
const MESSAGE_CHARS = 1_200;
/** Text given to the language detector. */
const LANGUAGE_CHARS = 160;
/** How much each part of the conversation counts: the latest exchange most, the user's own words more than the assistant's. */
const WEIGHTS = { latestUser: 1, latestAssistant: 0.6, olderUser: 0.5, olderAssistant: 0.3 } as const;

export interface SignalInput {
  /** The conversation window, oldest first. */
  messages: readonly { role: string; content: string }[];
  /** The relevance reading of the same window (its latest-exchange vector), when one was made. */
  view?: ConversationView;
  encoder?: TextEncoder;
  /** The chat host's Accept-Language header: the language's fallback. */
  acceptLanguage?: string;
}

export function conversationSignals({ messages, view, encoder, acceptLanguage }: SignalInput): ConversationSignals {
  const recent = messages.slice(-SIGNAL_MESSAGES);
  const texts = recent.map((m) => ({ role: m.role, text: scrubbed(m.content) }));
  let latestUser = -1;
  for (let i = texts.length - 1; i >= 0; i -= 1) {
    if (texts[i].role === 'user') {
      latestUser = i;
      break;
    }
  }
  const detected = detectTextLanguage(languageSample(texts, latestUser));
  const language = detected ?? headerLanguage(acceptLanguage);
  const languageSource = detected ? ('conversation' as const) : language ? ('header' as const) : undefined;
  if (!texts.length) return { search: '', keywords: [], categories: [], language, languageSource };

  const stop = functionWords(language);
  const weighted: (WeightedText & CategoryText)[] = texts.map((t, i) => ({
    text: t.text,
    weight:
      i >= latestUser && latestUser >= 0
        ? t.role === 'user'
          ? WEIGHTS.latestUser
          : WEIGHTS.latestAssistant
        : t.role === 'user'
          ? WEIGHTS.olderUser
          : WEIGHTS.olderAssistant,
  }));
  // The encoder reads English only: elsewhere its vectors would mislead.
  const english = language === 'en' || language === undefined;
  const topic = english && view ? view.recent : undefined;
  const topical = new Set<string>();
  const { tier1, tier2 } = conversationCategories({ texts: weighted, language, matched: topical, topic, encoder: english ? encoder : undefined });
  const budget = wordBudget();
  const keywords = rankKeywords(candidatePhrases(weighted, stop), { topic, encoder: english ? encoder : undefined, budget, topical });

  let search = '';
  if (latestUser >= 0) {
    const earlier = texts.slice(0, latestUser);
    const before = latestUser > 0 ? texts[latestUser - 1] : undefined;
    const answersQuestion = before?.role === 'assistant' && /[?？]/.test(before.text);
    const shape = intentShape({ latest: texts[latestUser].text, hasEarlier: earlier.length > 0, answersQuestion, stop, language });
    const context = shape.followUp ? followUpContext(earlier, { answersQuestion, stop, own: shape.content, topical }) : '';
    search = intentQuery(shape, context);
  }
  return {
    search,
    keywords: keywords.map((k) => k.surface),
    categories: [...tier1, ...tier2],
    language,
    languageSource,
  };
}

/** A message's first MESSAGE_CHARS characters (cut at a space), personal data cut out; scrubbed with a margin so a number the cut would split is still recognised. */
function scrubbed(content: string): string {
  const clean = scrubPii(content.length > MESSAGE_CHARS + 200 ? content.slice(0, MESSAGE_CHARS + 200) : content);
  if (clean.length <= MESSAGE_CHARS) return clean;
  const cut = clean.lastIndexOf(' ', MESSAGE_CHARS);
  return clean.slice(0, cut > 0 ? cut : MESSAGE_CHARS);
}

/** The user's latest message first, then the rest newest first, up to LANGUAGE_CHARS. */
function languageSample(texts: readonly { text: string }[], latestUser: number): string {
  const order =
    latestUser >= 0
      ? [
          latestUser,
          ...texts
            .map((_, i) => i)
            .filter((i) => i !== latestUser)
            .reverse(),
        ]
      : texts.map((_, i) => i).reverse();
  let sample = '';
  for (const i of order) {
    if (sample.length >= LANGUAGE_CHARS) break;
    sample += `${texts[i].text.slice(0, LANGUAGE_CHARS - sample.length)}\n`;
  }
  return sample;
}
