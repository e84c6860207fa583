import { dot, normalize, type TextEncoder, type WordBudget } from '../encoder';
import { CLAUSE, isContentWord, tokens } from './words';
import { PII_MARK } from '../pii';

/**
 * Keywords: at most MAX_KEYWORDS phrases (one to three words) that say what
 * the conversation is about, most relevant first. Candidates are the runs of
 * content words within a clause (and their single words); each counts by
 * where it was said (the user's latest message most, older messages least)
 * and by its length, and, where the encoder can read the language (English),
 * by how close its vector is to the latest exchange's: a phrase the exchange
 * is about outranks a word it merely contains.
 */
export const MAX_KEYWORDS = 10;
const MAX_PHRASE_WORDS = 3;
const TOPICAL_BOOST = 2;
/** Candidates scored with the encoder at most (the most frequent first): bounds the cost of a long conversation. */
const MAX_CANDIDATES = 24;

/** A text of the conversation (PII already cut out) and how much it counts. */
export interface WeightedText {
  text: string;
  weight: number;
}

export interface Phrase {
  /** As written (lower case). */
  surface: string;
  /** Folded words, space-separated. */
  key: string;
  words: number;
  score: number;
}

/** Candidate phrases of the texts, by folded key (first surface form kept). */
export function candidatePhrases(texts: readonly WeightedText[], stop: ReadonlySet<string>): Map<string, Phrase> {
  const phrases = new Map<string, Phrase>();
  const add = (surface: string, key: string, words: number, weight: number) => {
    const found = phrases.get(key);
    if (found) found.score += weight;
    else phrases.set(key, { surface, key, words, score: weight });
  };
  for (const { text, weight } of texts) {
    // A sentence personal data was cut out of gives no keyword ("my number is ...": "number").
    const clean = text.includes(PII_MARK) ? (text.match(/[^.!?？\n]+[.!?？\n]*/gu) ?? []).filter((x) => !x.includes(PII_MARK)).join(' ') : text;
    for (const clause of clean.split(CLAUSE)) {
      let run: { surface: string; key: string }[] = [];
      const flush = () => {
        for (let n = Math.min(MAX_PHRASE_WORDS, run.length); n >= 1; n -= 1) {
          for (let i = 0; i + n <= run.length; i += 1) {
            const part = run.slice(i, i + n);
            add(part.map((t) => t.surface).join(' '), part.map((t) => t.key).join(' '), n, weight);
          }
        }
        run = [];
      };
      for (const token of tokens(clause)) {
        if (isContentWord(token.key, stop)) run.push(token);
        else flush();
      }
      flush();
    }
  }
  return phrases;
}

/**
 * The top phrases. `topic` (a unit vector of the latest exchange) and
 * `encoder` are given when the conversation is in English; without them,
 * phrases rank by where and how often they were said and their length.
 */
export function rankKeywords(
  phrases: Map<string, Phrase>,
  opts: { topic?: Float32Array; encoder?: TextEncoder; budget?: WordBudget; max?: number; topical?: ReadonlySet<string> } = {},
): Phrase[] {
  const max = opts.max ?? MAX_KEYWORDS;
  // Longer phrases are more specific; a repeated one more central.
  const topical = opts.topical;
  // A phrase with a word some category names (its curated terms) is about a topic, not about how someone talks.
  const boost = (p: Phrase) => (topical?.size && p.key.split(' ').some((w) => topical.has(w)) ? TOPICAL_BOOST : 1);
  let ranked = [...phrases.values()].map((p) => ({ ...p, score: p.score * (1 + 0.35 * (p.words - 1)) * (1 + Math.min(p.key.length, 12) / 24) * boost(p) }));
  ranked.sort((a, b) => b.score - a.score);
  ranked = ranked.slice(0, MAX_CANDIDATES);
  const { topic, encoder } = opts;
  if (topic && encoder && topic.some((x) => x !== 0)) {
    // Each word's rows summed once (phrases share words); a phrase's vector is the sum of its words'.
    const words = new Map<string, Float32Array | null>();
    const wordVector = (word: string) => {
      let w = words.get(word);
      if (w === undefined) {
        const v = new Float32Array(encoder.dims);
        w = encoder.addWord(word, v, 1, opts.budget) > 0 ? v : null;
        words.set(word, w);
      }
      return w;
    };
    const v = new Float32Array(encoder.dims);
    for (const p of ranked) {
      v.fill(0);
      let informative = false;
      for (const word of p.key.split(' ')) {
        const w = wordVector(word);
        if (!w) continue;
        informative = true;
        for (let j = 0; j < v.length; j++) v[j] += w[j];
      }
      // A phrase of uninformative tokens only (weight 0) says nothing about the topic.
      const similarity = informative ? Math.max(0, dot(normalize(v), topic)) : 0;
      p.score *= 0.25 + similarity;
    }
    ranked.sort((a, b) => b.score - a.score);
  }
  const chosen: Phrase[] = [];
  for (const p of ranked) {
    if (chosen.length >= max) break;
    const words = p.key.split(' ');
    // A phrase whose words a chosen phrase already has adds nothing; a chosen single word a longer phrase contains gives way to it.
    if (chosen.some((c) => words.every((w) => ` ${c.key} `.includes(` ${w} `)))) continue;
    const contained = chosen.findIndex((c) => c.words === 1 && words.includes(c.key));
    if (contained < 0) {
      chosen.push(p);
      continue;
    }
    chosen[contained] = p;
    for (let i = chosen.length - 1; i > contained; i -= 1) if (chosen[i].words === 1 && words.includes(chosen[i].key)) chosen.splice(i, 1);
  }
  return chosen;
}
