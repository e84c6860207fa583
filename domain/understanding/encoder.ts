import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { LRUCache } from 'lru-cache';
import { dotAt } from '../../lib/vectors';
import { decodeStaticTable, staticTablePath, textModelDir, verifyModelFile, type StaticTable } from './text-model';

/**
 * Text -> vector with the distilled text model: the text's WordPiece tokens'
 * table rows, averaged by their weights, at unit length (cosine = dot product).
 * Words are tokenized once and remembered (a bounded cache), so a text costs a
 * split, a lookup per word and a weighted sum of 384 floats per token.
 */
export class TextEncoder {
  readonly dims: number;
  private readonly words: LRUCache<string, Int32Array>;

  constructor(
    private readonly table: StaticTable,
    private readonly tokenizer: Tokenizer,
  ) {
    this.dims = table.dims;
    this.words = new LRUCache<string, Int32Array>({ maxSize: 4 * 1024 * 1024, sizeCalculation: (ids, word) => 64 + word.length * 2 + ids.byteLength });
  }

  /**
   * A normalized word's token ids (WordPiece, through the tokenizer's model: the
   * normalizing and splitting are normalizeWords'), remembered; undefined when
   * it is not remembered and `budget` has no new word left (it is noted there).
   */
  idsOf(word: string, budget?: WordBudget): Int32Array | undefined {
    let ids = this.words.get(word);
    if (ids) return ids;
    if (word.length > MAX_WORD_CHARS) return EMPTY_IDS;
    if (budget) {
      if (budget.left <= 0) {
        budget.skipped.push(word);
        return undefined;
      }
      budget.left -= 1;
    }
    const model = this.tokenizer.model!;
    ids = Int32Array.from(model.encode([word]), (token) => model.tokens_to_ids.get(token) ?? UNKNOWN_ID);
    this.words.set(word, ids);
    return ids;
  }

  /** How many words are remembered (tests watch the budget with it). */
  get rememberedWords(): number {
    return this.words.size;
  }

  /** Tokenizes and remembers words a budget skipped, a slice at a time between other work (never more than a slice's time at once). */
  warm(words: readonly string[]): void {
    const slice = words.slice(0, NEW_WORDS_PER_READ);
    for (const word of slice) this.idsOf(word);
    if (words.length > slice.length) setImmediate(() => this.warm(words.slice(slice.length)));
  }

  /** Adds the (normalized) word's weighted token rows into `into` and returns the weight added; 0 when the budget skipped it. */
  addWord(word: string, into: Float32Array, scale = 1, budget?: WordBudget): number {
    const { weights, vectors } = this.table;
    const dims = this.dims;
    let added = 0;
    for (const id of this.idsOf(word, budget) ?? EMPTY_IDS) {
      const w = weights[id] * scale;
      if (w === 0) continue;
      const row = id * dims;
      for (let j = 0; j < dims; j++) into[j] += w * vectors[row + j];
      added += w;
    }
    return added;
  }

  /** The unit vector of a text (all zeros when it has no informative token). */
  encode(text: string): Float32Array {
    return normalize(this.sum(text));
  }

  /** The text's weighted sum of token rows, before normalizing (texts' sums add up to their concatenation's). */
  sum(text: string): Float32Array {
    const v = new Float32Array(this.dims);
    for (const word of normalizeWords(text).split(' ')) if (word) this.addWord(word, v);
    return v;
  }
}

/**
 * How many words not yet remembered one reading may tokenize (tokenizing is the
 * costly part of a reading): the rest are left out of that reading and tokenized after it (TextEncoder.warm),
 * so a conversation of made-up words cannot hold the event loop.
 */
export const NEW_WORDS_PER_READ = 32;
/** Longer "words" (hashes, URLs run together) are no word of the vocabulary's: left out. */
const MAX_WORD_CHARS = 40;
const EMPTY_IDS = new Int32Array(0);
/** [UNK]: weight 0 in the table. */
const UNKNOWN_ID = 100;

export interface WordBudget {
  left: number;
  skipped: string[];
}

export const wordBudget = (): WordBudget => ({ left: NEW_WORDS_PER_READ, skipped: [] });

/**
 * A text as the model's words: lower case, accents folded (as the uncased
 * model's normalizer does), letters and digits only, space-separated.
 */
export function normalizeWords(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

export function length(v: Float32Array): number {
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j] * v[j];
  return Math.sqrt(s);
}

export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (let j = 0; j < v.length; j++) norm += v[j] * v[j];
  if (norm === 0) return v;
  const inv = 1 / Math.sqrt(norm);
  for (let j = 0; j < v.length; j++) v[j] *= inv;
  return v;
}

/** The inner product of two vectors of the same length. */
export const dot = (a: Float32Array, b: Float32Array): number => dotAt(a, b, 0, a.length);

let shared: TextEncoder | undefined;

/** The process's encoder, loaded (and its files verified) on first use. */
export function textEncoder(dir = textModelDir()): TextEncoder {
  if (shared) return shared;
  const tokenizerJson = JSON.parse(readFileSync(verifyModelFile(dir, 'tokenizer.json'), 'utf8')) as object;
  const tokenizerConfig = JSON.parse(readFileSync(verifyModelFile(dir, 'tokenizer_config.json'), 'utf8')) as object;
  const table = decodeStaticTable(readFileSync(path.resolve(staticTablePath(dir))));
  shared = new TextEncoder(table, new Tokenizer(tokenizerJson, tokenizerConfig));
  return shared;
}
