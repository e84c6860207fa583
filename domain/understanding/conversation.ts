import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { normalize, normalizeWords, wordBudget, type TextEncoder, type WordBudget } from './encoder';

export { normalizeWords };

/**
 * What a conversation is about now, as the relevance scorer reads it:
 *  - vectors of the latest exchange (the user's last message weighs most, the
 *    assistant's answer half) and of the older messages, apart: an older topic
 *    must not keep serving once the conversation moved on;
 *  - its words, for exact phrase matches;
 *  - what the user turned away from: clauses with a negative stance ("I hate
 *    running", "cancel my meal kit") leave the vectors and their words are kept
 *    apart, so the topic they name does not serve.
 * Each message is analysed once and remembered by its text's hash, so a later
 * request of the same conversation only pays for its new messages.
 */
export interface ConversationView {
  /** Unit vectors (all zeros when the text has no informative word). */
  recent: Float32Array;
  user: Float32Array;
  older: Float32Array;
  /** Space-separated normalized words, clauses separated by " | " (phrases never match across them), with a space at each end. */
  recentText: string;
  negatedText: string;
  olderText: string;
  /** The user's part of recentText: what they asked, apart from what the assistant listed. */
  userText: string;
  /** Every word of the texts above: a phrase whose first word is not here occurs in none of them (mayHavePhrase). */
  words: ReadonlySet<string>;
}

/** One message, analysed. */
interface MessageAnalysis {
  /** Weighted sum of its kept clauses' token rows (not normalized) and its total weight. */
  sum: Float32Array;
  words: string;
  negated: string;
}

/**
 * Bounds on the work of one reading: the newest messages only, and each
 * message's first words (a topic is named early; the rest of a long answer
 * adds cost, not sense).
 */
export const READ_MESSAGES = 8;
export const MAX_WORDS_PER_MESSAGE = 160;

/** Weights of the parts of a conversation in its recent vector. */
const USER_WEIGHT = 1;
const ASSISTANT_WEIGHT = 0.5;

/**
 * A clause with one of these turns away from its topic. Matched on whole words
 * of the normalized clause; English only (other languages keep every clause).
 */
const NEGATIVE_STANCE =
  /(^| )(hate|hated|hates|dislike|can ?t stand|cannot stand|(don ?t|do not|never|no longer|won ?t|wont) (want|need|buy|use|drink|eat|like|do)|not interested|no interest|want out|cancel|cancelling|canceling|cancelled|canceled|unsubscribe|uninstall|uninstalling|delete|deleting|quit|quitting|gave up|give up|giving up|stop|stopped|stopping|sick of|tired of|fed up|get rid of|getting rid of|never again|refund|done with|over it|allergic to)( |$)/;

/** Clause boundaries: sentence ends, commas, semicolons, and "but". */
const CLAUSES = /[.!?;,:\n]+|\bbut\b|\bbecause\b/i;

export class ConversationReader {
  private readonly messages: LRUCache<string, MessageAnalysis>;

  constructor(
    private readonly encoder: TextEncoder,
    cacheBytes = 32 * 1024 * 1024,
  ) {
    this.messages = new LRUCache<string, MessageAnalysis>({
      maxSize: cacheBytes,
      sizeCalculation: (m) => 200 + m.sum.byteLength + 2 * (m.words.length + m.negated.length),
    });
  }

  /** The view of a conversation (its messages oldest first; only the newest READ_MESSAGES are read). */
  read(conversation: readonly { role: string; content: string }[]): ConversationView {
    const messages = conversation.slice(-READ_MESSAGES);
    const dims = this.encoder.dims;
    const recent = new Float32Array(dims);
    const user = new Float32Array(dims);
    const older = new Float32Array(dims);
    const recentText: string[] = [];
    const negatedText: string[] = [];
    const olderText: string[] = [];
    const userText: string[] = [];
    // The latest exchange: the last user message and whatever the assistant answered after it.
    let lastUser = -1;
    for (let i = messages.length - 1; i >= 0; i--) {
      if (messages[i].role === 'user') {
        lastUser = i;
        break;
      }
    }
    const firstRecent = lastUser >= 0 ? lastUser : Math.max(0, messages.length - 2);
    // Newest first, so a budget that runs out leaves out the oldest messages' new words.
    const budget = wordBudget();
    const analysed = messages.map(() => null as MessageAnalysis | null);
    for (let i = messages.length - 1; i >= 0; i--) analysed[i] = this.analyse(messages[i].content, budget);
    if (budget.skipped.length) setImmediate(() => this.encoder.warm(budget.skipped));
    messages.forEach((message, i) => {
      const m = analysed[i]!;
      if (i >= firstRecent) {
        const weight = message.role === 'user' ? USER_WEIGHT : ASSISTANT_WEIGHT;
        addScaled(recent, m.sum, weight);
        if (message.role === 'user') {
          addScaled(user, m.sum, 1);
          userText.push(m.words);
        }
        recentText.push(m.words);
        if (m.negated) negatedText.push(m.negated);
      } else {
        addScaled(older, m.sum, 1);
        olderText.push(m.words);
      }
    });
    const words = new Set<string>();
    for (const part of [recentText, negatedText, olderText]) for (const text of part) for (const word of text.split(' ')) words.add(word);
    return {
      recent: normalize(recent),
      user: normalize(user),
      older: normalize(older),
      recentText: padded(recentText),
      negatedText: padded(negatedText),
      olderText: padded(olderText),
      userText: padded(userText),
      words,
    };
  }

  private analyse(content: string, budget: WordBudget): MessageAnalysis {
    const key = createHash('sha1').update(content).digest('base64');
    let m = this.messages.get(key);
    if (m) return m;
    const skippedBefore = budget.skipped.length;
    const sum = new Float32Array(this.encoder.dims);
    const kept: string[] = [];
    const negated: string[] = [];
    let wordsLeft = MAX_WORDS_PER_MESSAGE;
    for (const clause of content.split(CLAUSES)) {
      if (wordsLeft <= 0) break;
      let words = normalizeWords(clause);
      if (!words) continue;
      const split = words.split(' ');
      if (split.length > wordsLeft) words = split.slice(0, wordsLeft).join(' ');
      wordsLeft -= split.length;
      if (NEGATIVE_STANCE.test(words)) {
        negated.push(words);
        continue;
      }
      kept.push(words);
      for (const word of words.split(' ')) this.encoder.addWord(word, sum, 1, budget);
    }
    m = { sum, words: kept.join(' | '), negated: negated.join(' | ') };
    // Remembered only when whole: a later reading, its words warmed by then, reads it again.
    if (budget.skipped.length === skippedBefore) this.messages.set(key, m);
    return m;
  }
}

/** The texts with a space at each end, so that hasPhrase needs no copy per phrase. */
const padded = (parts: string[]): string => (parts.length ? ` ${parts.join(' | ')} ` : '');

function addScaled(into: Float32Array, v: Float32Array, scale: number): void {
  for (let j = 0; j < into.length; j++) into[j] += scale * v[j];
}

/** False when `phrase` occurs in none of the view's texts (its first word, or a one-word phrase's plural, is none of their words): no string search needed. */
export function mayHavePhrase(view: ConversationView, phrase: string): boolean {
  const space = phrase.indexOf(' ');
  if (space > 0) return view.words.has(phrase.slice(0, space));
  return view.words.has(phrase) || view.words.has(`${phrase}s`) || view.words.has(`${phrase}es`);
}

/**
 * Whether `phrase` (normalized words) occurs in `text` as whole words, the
 * last word also in its plural ("long run" in "my long runs"), never across a
 * clause boundary.
 */
export function hasPhrase(text: string, phrase: string): boolean {
  if (!phrase || !text) return false;
  const within = text.charCodeAt(0) === 32 ? text : ` ${text} `;
  const at = within.indexOf(` ${phrase}`);
  if (at < 0) return false;
  return within.includes(` ${phrase} `) || within.includes(` ${phrase}s `) || within.includes(` ${phrase}es `);
}
