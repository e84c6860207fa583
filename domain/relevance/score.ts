import { dot } from '../understanding/encoder';
import { hasPhrase, mayHavePhrase, type ConversationView } from '../understanding/conversation';
import type { RelevanceProfile } from './profile';
import weights from './weights.json';

/**
 * How relevant an ad group is to a conversation now: a probability in [0, 1]
 * from a logistic model over a few signals (docs/relevance.md). The model's
 * weights are fitted on the labelled set in bench/relevance/ by
 * bench/relevance/train.ts; every caller (the auction, the hint test, adctl
 * relevance) scores through this one function.
 */
export const FEATURES = [
  /** The latest exchange against the group's hints and copy together. */
  'topic',
  /** ... against the hints alone. */
  'hints',
  /** The user's last message against the hints. */
  'user',
  /** The best single hint against the latest exchange. */
  'best_hint',
  /** A hint's words, whole, in the latest exchange (not in a clause that turns away). */
  'phrase',
  /** ... a hint of several words (less ambiguous than one word: "long run" against "run"). */
  'phrase_multiword',
  /** A phrase match weighed by how well the whole exchange agrees ("switch" beside a fishing reel does not). */
  'phrase_agrees',
  /** A hint's words in a clause that turns away ("I hate running"), wherever else they are. */
  'phrase_turned_away',
  /** A hint's words only in older messages (the topic moved on). */
  'phrase_older_only',
  /** The older messages against the group (an old topic alone must not serve). */
  'older',
  /** A hint's words in what the user said (not only in what the assistant listed). */
  'phrase_user',
  /** The topic similarity against ordinary conversations' (a z-score): how unusually near this group's topic the exchange is. */
  'topic_z',
  /** How the user asks, whatever the group (needOf): wanting, buying or fixing something, or a question of fact, homework, trivia. */
  'need',
  /** ... where a hint's words are present: a hint's word in a question of fact ("what fish is sea bass") is not a need for it. */
  'need_phrase',
] as const;

export type Features = Record<(typeof FEATURES)[number], number>;

export function featuresOf(view: ConversationView, profile: RelevanceProfile): Features {
  const memo = memoOf(view);
  let bestHint = 0;
  for (const h of profile.hintVectors) bestHint = Math.max(bestHint, recentDot(view, memo, h));
  let phrase = 0;
  let multiword = 0;
  let turnedAway = 0;
  let older = 0;
  let phraseUser = 0;
  for (const p of profile.phrases) {
    const where = phraseIn(view, memo, p);
    if (where === 0) continue;
    if (where & IN_USER) phraseUser = 1;
    if (where & IN_NEGATED) turnedAway = 1;
    if (where & IN_RECENT) {
      phrase = 1;
      if (p.includes(' ')) multiword = 1;
    } else if (where & IN_OLDER) older = 1;
  }
  const topic = recentDot(view, memo, profile.topic);
  const need = viewNeed(view);
  let user = memo.userDots.get(profile.hints);
  if (user === undefined) memo.userDots.set(profile.hints, (user = dot(view.user, profile.hints)));
  return {
    topic,
    hints: recentDot(view, memo, profile.hints),
    user,
    best_hint: bestHint,
    phrase,
    phrase_multiword: multiword,
    phrase_agrees: phrase * topic,
    phrase_turned_away: turnedAway,
    phrase_older_only: phrase ? 0 : older,
    // No older messages: their vector is all zeros.
    older: view.olderText ? dot(view.older, profile.topic) : 0,
    phrase_user: phraseUser,
    topic_z: (topic - profile.topicMean) / profile.topicSpread,
    need,
    need_phrase: need * phrase,
  };
}

/**
 * What scoring one conversation learns that other ad groups reuse: a catalog's
 * groups share hints (their vectors and phrases are shared within a load), so
 * the candidates of one request ask the same questions many times.
 */
interface ViewMemo {
  recentDots: Map<Float32Array, number>;
  userDots: Map<Float32Array, number>;
  /** Where a phrase occurs (IN_* bits). */
  phrases: Map<string, number>;
}

const memos = new WeakMap<ConversationView, ViewMemo>();

function memoOf(view: ConversationView): ViewMemo {
  let memo = memos.get(view);
  if (!memo) memos.set(view, (memo = { recentDots: new Map(), userDots: new Map(), phrases: new Map() }));
  return memo;
}

function recentDot(view: ConversationView, memo: ViewMemo, v: Float32Array): number {
  let d = memo.recentDots.get(v);
  if (d === undefined) memo.recentDots.set(v, (d = dot(view.recent, v)));
  return d;
}

/**
 * The latest exchange's similarity to `vector`, computed elsewhere by the very
 * inner product recentDot computes (the retrieval's, lib/ivf-index.ts
 * nearestScored, over its own copy of the group's topic): scoring reads it
 * instead of the vector again.
 */
export function noteRecentSimilarity(view: ConversationView, vector: Float32Array, similarity: number): void {
  memoOf(view).recentDots.set(vector, similarity);
}

const IN_USER = 1;
const IN_NEGATED = 2;
const IN_RECENT = 4;
const IN_OLDER = 8;

function phraseIn(view: ConversationView, memo: ViewMemo, p: string): number {
  let where = memo.phrases.get(p);
  if (where === undefined) {
    where = 0;
    if (mayHavePhrase(view, p)) {
      if (hasPhrase(view.userText, p)) where |= IN_USER;
      if (hasPhrase(view.negatedText, p)) where |= IN_NEGATED;
      if (hasPhrase(view.recentText, p)) where |= IN_RECENT;
      else if (hasPhrase(view.olderText, p)) where |= IN_OLDER;
    }
    memo.phrases.set(p, where);
  }
  return where;
}

/**
 * The log-odds that a conversation asks for something an ad could answer, from
 * how the user asks: a weight per word of their latest message, only the
 * vocabulary's most frequent whole words (how people ask: "get", "worth",
 * "why", "difference"; hardly what about, so it holds for another catalog).
 * Fitted with the model (bench/relevance/train.ts).
 */
export interface NeedModel {
  bias: number;
  words: Record<string, number>;
}

export interface RelevanceModel {
  bias: number;
  weights: Features;
  need: NeedModel;
}

export const RELEVANCE_MODEL: RelevanceModel = weights;

/** The need of a conversation whose user's latest words (normalized, each once) are `words`. */
export function needOf(words: Iterable<string>, need: NeedModel = RELEVANCE_MODEL.need): number {
  let z = need.bias;
  for (const word of words) if (Object.hasOwn(need.words, word)) z += need.words[word];
  return z;
}

/** The words needOf reads of a view: the user's latest message's, each once. */
export const userWordsOf = (view: ConversationView): Set<string> => new Set(view.userText.split(' ').filter((w) => w && w !== '|'));

/** One per view: every group a request scores shares it. */
const needs = new WeakMap<ConversationView, number>();
function viewNeed(view: ConversationView): number {
  let need = needs.get(view);
  if (need === undefined) needs.set(view, (need = needOf(userWordsOf(view))));
  return need;
}

export function logistic(model: Pick<RelevanceModel, 'bias' | 'weights'>, f: Features): number {
  let z = model.bias;
  for (const name of FEATURES) z += model.weights[name] * f[name];
  return 1 / (1 + Math.exp(-z));
}

/** The relevance of a group to a conversation, in [0, 1]. */
export function relevanceOf(view: ConversationView, profile: RelevanceProfile, model = RELEVANCE_MODEL): number {
  return logistic(model, featuresOf(view, profile));
}

/** The score at or above which a group is relevant, unless a publisher asks for more (docs/relevance.md). */
export const DEFAULT_MIN_RELEVANCE = 0.5;
