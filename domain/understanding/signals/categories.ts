import { contentTaxonomy, type ContentCategory } from '../content-taxonomy';
import { dot, type TextEncoder } from '../encoder';
import terms from './data/category-terms.json';
import { tokens, type Token } from './words';

/**
 * Content categories (IAB Content Taxonomy 3.0, cattax 7) of what a
 * conversation is about, from two readings:
 *  - curated terms per category and language (data/category-terms.json),
 *    matched on whole words (a word may take a short ending: plural, case),
 *    the longest term at a place winning ("car insurance" over "insurance");
 *    a tier-2 term counts for its tier-1 too;
 *  - for English, the encoder: the latest exchange's vector against each
 *    tier-1 category's, made from its taxonomy names and English terms.
 * Every tier-1 category but Sensitive Topics (the safety screen's) and Genres
 * (kinds of media, not topics) can be found. Tier-1 ids first, best first;
 * a tier-2 id only where its terms carry most of its parent's score.
 */
export const MAX_CATEGORIES = 3;
const EXCLUDED_TIER1 = new Set(['v9i3On', 'SPSHQ5']);

/** A text of the conversation and how much what it says counts. */
export interface CategoryText {
  text: string;
  weight: number;
}

interface Term {
  /** Folded words; the first may be cut to its stem (see stemOf). */
  words: string[];
  /** As written, lower case: a word with an accent matches only words with it ("thé" is not "the"). */
  surfaces: string[];
  category: string;
  /** ISO 639-1: a term counts only in a conversation of its language, or anywhere when English (conversations borrow English words). */
  language: string;
}

interface Model {
  /** Terms by their first (folded) word. */
  byFirst: Map<string, Term[]>;
  tier1Of: Map<string, string>;
  /** A tier-2 or deeper category's tier-2 ancestor (itself for a tier-2 one). */
  tier2Of: Map<string, string>;
  tier: Map<string, number>;
}

let model: Model | undefined;

function categoryModel(): Model {
  if (model) return model;
  const taxonomy = contentTaxonomy();
  const byId = new Map(taxonomy.map((c) => [c.id, c]));
  const tier1Of = new Map<string, string>();
  const tier2Of = new Map<string, string>();
  const tier = new Map<string, number>();
  for (const c of taxonomy) {
    let top: ContentCategory = c;
    let second: ContentCategory | undefined;
    while (top.parent && byId.has(top.parent)) {
      second = top;
      top = byId.get(top.parent)!;
    }
    tier1Of.set(c.id, top.id);
    if (second) tier2Of.set(c.id, second.id);
    tier.set(c.id, c.tier);
  }
  const byFirst = new Map<string, Term[]>();
  for (const [category, languages] of Object.entries(terms as Record<string, Record<string, string> | string>)) {
    if (typeof languages === 'string' || !byId.has(category)) continue;
    for (const [language, list] of Object.entries(languages)) {
      for (const term of list.split(',')) {
        const parts = tokens(term);
        if (!parts.length) continue;
        const words = parts.map((t) => (language === 'en' ? t.key : stemOf(t.key)));
        const surfaces = parts.map((t) => (t.surface === t.key ? '' : language === 'en' ? t.surface : stemOf(t.surface)));
        const entry = byFirst.get(words[0]) ?? [];
        if (!entry.some((t) => t.category === category && t.language === language && t.words.join(' ') === words.join(' ')))
          entry.push({ words, surfaces, category, language });
        byFirst.set(words[0], entry);
      }
    }
  }
  model = { byFirst, tier1Of, tier2Of, tier };
  return model;
}

/**
 * Another language's term is matched by its stem: a final vowel of a word of
 * five letters or more is dropped, so inflected forms match ("поездка" and
 * "поездку", "batteria" and "batterie"). English terms are matched as written.
 */
const FINAL_VOWEL = /[aeiouyıаяоеёыиуюьęąàèéìòù]$/u;
function stemOf(word: string): string {
  return word.length >= 5 ? word.replace(FINAL_VOWEL, '') : word;
}

/** How many letters a word may add to a term's word: none to a short English word (but a plural s), a few to a long one or another language's (plural, case). */
function endingAllowed(term: string, word: string, english: boolean): boolean {
  if (!word.startsWith(term)) return false;
  const extra = word.length - term.length;
  if (extra === 0) return true;
  if (term.length <= 2) return false;
  if (term.length === 3) return english ? extra === 1 && word.endsWith('s') : extra <= 2;
  if (term.length === 4) return extra <= 2;
  return extra <= 4;
}

function wordMatches(term: Term, k: number, word: Token): boolean {
  const english = term.language === 'en';
  if (!endingAllowed(term.words[k], word.key, english)) return false;
  const surface = term.surfaces[k];
  return !surface || word.surface.startsWith(surface);
}

/** The terms that start at `words[i]`, longest first (all of the same, longest, length). */
function termsAt(words: readonly Token[], i: number, m: Model, language: string): Term[] {
  const key = words[i].key;
  let best: Term[] = [];
  let bestLength = 0;
  for (let cut = key.length; cut >= Math.max(1, key.length - 4); cut -= 1) {
    const candidates = m.byFirst.get(key.slice(0, cut));
    if (!candidates) continue;
    for (const term of candidates) {
      if ((term.language !== 'en' && term.language !== language) || i + term.words.length > words.length) continue;
      let whole = true;
      for (let k = 0; k < term.words.length && whole; k += 1) whole = wordMatches(term, k, words[i + k]);
      if (!whole) continue;
      const length = term.words.join(' ').length;
      if (length > bestLength) {
        best = [term];
        bestLength = length;
      } else if (length === bestLength) best.push(term);
    }
  }
  return best;
}

/** Per tier-1 and tier-2 category id, the weighted count of its terms (and its descendants') in the texts, in `language` (ISO 639-1) and English. */
export function termScores(texts: readonly CategoryText[], language = 'en', matched?: Set<string>): Map<string, number> {
  const m = categoryModel();
  const scores = new Map<string, number>();
  for (const { text, weight } of texts) {
    const words = tokens(text);
    for (let i = 0; i < words.length; i += 1) {
      const found = termsAt(words, i, m, language);
      if (!found.length) continue;
      const span = Math.max(...found.map((t) => t.words.length));
      if (matched) for (let k = 0; k < span; k += 1) matched.add(words[i + k].key);
      const seen = new Set<string>();
      for (const term of found) {
        const w = weight * (1 + 0.5 * (term.words.length - 1));
        const tier1 = m.tier1Of.get(term.category)!;
        // A term listed under a category and its parent counts once for the parent.
        if (!seen.has(tier1)) {
          scores.set(tier1, (scores.get(tier1) ?? 0) + w);
          seen.add(tier1);
        }
        const tier2 = m.tier2Of.get(term.category);
        if (tier2 && !seen.has(tier2)) {
          scores.set(tier2, (scores.get(tier2) ?? 0) + w);
          seen.add(tier2);
        }
      }
      i += span - 1;
    }
  }
  return scores;
}

const profiles = new WeakMap<TextEncoder, Map<string, Float32Array>>();

/** Each findable tier-1 category's vector: its taxonomy names and English terms, encoded once per encoder. */
export function categoryProfiles(encoder: TextEncoder): Map<string, Float32Array> {
  let out = profiles.get(encoder);
  if (out) return out;
  out = new Map();
  const m = categoryModel();
  const taxonomy = contentTaxonomy();
  const all = terms as Record<string, Record<string, string> | string>;
  for (const c of taxonomy) {
    if (c.tier !== 1 || EXCLUDED_TIER1.has(c.id)) continue;
    const parts = [c.name];
    for (const child of taxonomy) {
      if (child.tier !== 2 || m.tier1Of.get(child.id) !== c.id) continue;
      parts.push(child.name);
    }
    for (const [id, languages] of Object.entries(all)) {
      if (typeof languages === 'string' || m.tier1Of.get(id) !== c.id) continue;
      if (languages.en) parts.push(languages.en);
    }
    out.set(c.id, encoder.encode(parts.join(', ')));
  }
  profiles.set(encoder, out);
  return out;
}

export const findableTier1 = (id: string) => !EXCLUDED_TIER1.has(id);

export interface CategoryInput {
  texts: readonly CategoryText[];
  /** The conversation's language (ISO 639-1): its terms and English ones are matched. */
  language?: string;
  /** Filled with the (folded) words that matched a category's term: the conversation's topical words. */
  matched?: Set<string>;
  /** The latest exchange's unit vector, when the encoder reads the conversation's language. */
  topic?: Float32Array;
  encoder?: TextEncoder;
}

/** How the two readings add up (see docs/signals.md for how they were chosen). */
export const CATEGORY_WEIGHTS = { vector: 6, vectorFloor: 0.2, minScore: 0.6, keepRatio: 0.5, tier2Share: 0.6 } as const;

/** The conversation's categories: tier-1 ids, best first, then confident tier-2 ids. */
export function conversationCategories({ texts, language, matched, topic, encoder }: CategoryInput): { tier1: string[]; tier2: string[] } {
  const m = categoryModel();
  const lexical = termScores(texts, language, matched);
  const scores = new Map<string, number>();
  for (const [id, score] of lexical) if (m.tier.get(id) === 1 && findableTier1(id)) scores.set(id, score);
  if (topic && encoder && topic.some((x) => x !== 0)) {
    const { vector, vectorFloor } = CATEGORY_WEIGHTS;
    for (const [id, profile] of categoryProfiles(encoder)) {
      const similarity = dot(topic, profile) - vectorFloor;
      if (similarity > 0) scores.set(id, (scores.get(id) ?? 0) + vector * similarity);
    }
  }
  const ranked = [...scores.entries()].sort((a, b) => b[1] - a[1]);
  const top = ranked[0]?.[1] ?? 0;
  if (top < CATEGORY_WEIGHTS.minScore) return { tier1: [], tier2: [] };
  const tier1 = ranked
    .filter(([, s]) => s >= top * CATEGORY_WEIGHTS.keepRatio)
    .slice(0, MAX_CATEGORIES)
    .map(([id]) => id);
  const tier2: string[] = [];
  for (const id of tier1) {
    const parent = lexical.get(id) ?? 0;
    let best: [string, number] | undefined;
    for (const [child, s] of lexical) {
      if (m.tier.get(child) !== 2 || m.tier1Of.get(child) !== id) continue;
      if (!best || s > best[1]) best = [child, s];
    }
    if (best && parent > 0 && best[1] >= parent * CATEGORY_WEIGHTS.tier2Share) tier2.push(best[0]);
  }
  return { tier1, tier2 };
}
