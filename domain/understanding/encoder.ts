import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { LRUCache } from 'lru-cache';
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

  /** The words of a text as the model's pre-tokenizer splits them (lower case, accents kept for the tokenizer to fold). */
  static words(text: string): string[] {
    return text.toLowerCase().match(WORD) ?? [];
  }

  /** A word's token ids, remembered. */
  idsOf(word: string): Int32Array {
    let ids = this.words.get(word);
    if (!ids) {
      ids = Int32Array.from(this.tokenizer.encode(word, { add_special_tokens: false }).ids);
      this.words.set(word, ids);
    }
    return ids;
  }

  /** Adds the word's weighted token rows into `into` and returns the weight added. */
  addWord(word: string, into: Float32Array, scale = 1): number {
    const { weights, vectors } = this.table;
    const dims = this.dims;
    let added = 0;
    for (const id of this.idsOf(word)) {
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
    const v = new Float32Array(this.dims);
    for (const word of TextEncoder.words(text)) this.addWord(word, v);
    return normalize(v);
  }
}

/** Letters and digits runs, or one other visible character (BERT splits punctuation off). */
const WORD = /[\p{L}\p{M}\p{N}]+|[^\s\p{L}\p{M}\p{N}]/gu;

export function normalize(v: Float32Array): Float32Array {
  let norm = 0;
  for (let j = 0; j < v.length; j++) norm += v[j] * v[j];
  if (norm === 0) return v;
  const inv = 1 / Math.sqrt(norm);
  for (let j = 0; j < v.length; j++) v[j] *= inv;
  return v;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let j = 0; j < a.length; j++) s += a[j] * b[j];
  return s;
}

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
