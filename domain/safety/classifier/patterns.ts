/**
 * The lexicon's small pattern language, compiled once at module load into
 * sequences over word ids:
 *
 *   kill myself            words, each stemmed like the conversation's words
 *   kill|end|take          one of these words at this position
 *   (end my life|kms)      one of these word sequences
 *   really?  (so much)?    optional word or group
 *   ~3                     up to 3 other words (never across a clause end)
 *   *                      exactly one word
 *   #teen #ordinal         a number 8-17 (digits or words) / an ordinal 1st-12th
 *   $                      a clause end: punctuation or the end of the message
 */
import { stem } from './normalize';

export type PatternElement =
  { kind: 'words'; ids: readonly number[] } | { kind: 'gap'; max: number } | { kind: 'any' } | { kind: 'teen' } | { kind: 'ordinal' } | { kind: 'end' };

/** Word ids: 0 is any word the lexicon does not know. */
export class Vocabulary {
  private readonly ids = new Map<string, number>();
  readonly words: string[] = [''];

  /** The id of a word's stem, adding it when new. */
  add(word: string): number {
    const key = stem(word);
    let id = this.ids.get(key);
    if (id === undefined) {
      id = this.words.length;
      this.ids.set(key, id);
      this.words.push(key);
    }
    return id;
  }

  /** The id of an already stemmed key, or 0. */
  idOfStem(key: string): number {
    return this.ids.get(key) ?? 0;
  }
}

type Piece = string | { alternatives: Piece[][]; optional: boolean };

/** Splits a pattern into pieces; groups "(a b|c)" keep their alternatives. */
function parse(source: string): Piece[] {
  const pieces: Piece[] = [];
  let i = 0;
  const readGroup = (): { alternatives: Piece[][]; optional: boolean } => {
    // i points just after "(".
    let depth = 1;
    const start = i;
    while (i < source.length && depth > 0) {
      if (source[i] === '(') depth += 1;
      else if (source[i] === ')') depth -= 1;
      i += 1;
    }
    if (depth !== 0) throw new Error(`unbalanced group in lexicon pattern: ${source}`);
    const inner = source.slice(start, i - 1);
    const optional = source[i] === '?';
    if (optional) i += 1;
    return { alternatives: splitTopLevel(inner).map(parse), optional };
  };
  while (i < source.length) {
    const ch = source[i];
    if (ch === ' ') {
      i += 1;
      continue;
    }
    if (ch === '(') {
      i += 1;
      pieces.push(readGroup());
      continue;
    }
    let j = i;
    while (j < source.length && source[j] !== ' ' && source[j] !== '(') j += 1;
    pieces.push(source.slice(i, j));
    i = j;
  }
  return pieces;
}

function splitTopLevel(inner: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < inner.length; i += 1) {
    if (inner[i] === '(') depth += 1;
    else if (inner[i] === ')') depth -= 1;
    else if (inner[i] === '|' && depth === 0) {
      parts.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(inner.slice(start));
  return parts;
}

/** Every word sequence a pattern stands for (groups and optional parts expanded). */
function expand(pieces: readonly Piece[]): string[][] {
  let sequences: string[][] = [[]];
  for (const piece of pieces) {
    if (typeof piece === 'string') {
      sequences = sequences.map((s) => [...s, piece]);
      continue;
    }
    const options = piece.alternatives.flatMap(expand);
    if (piece.optional) options.push([]);
    sequences = sequences.flatMap((s) => options.map((o) => [...s, ...o]));
  }
  return sequences;
}

function element(token: string, vocabulary: Vocabulary): PatternElement {
  if (token === '$') return { kind: 'end' };
  if (token === '*') return { kind: 'any' };
  if (token === '#teen') return { kind: 'teen' };
  if (token === '#ordinal') return { kind: 'ordinal' };
  if (/^~\d+$/.test(token)) return { kind: 'gap', max: Number(token.slice(1)) };
  const optionalWord = token.endsWith('?');
  if (optionalWord) throw new Error(`internal: optional word not expanded: ${token}`);
  return { kind: 'words', ids: token.split('|').map((w) => vocabulary.add(w)) };
}

/**
 * Elements are read-only, so each distinct token of a vocabulary is one element object that every sequence
 * holding it shares. The lexicon expands to about 80,000 sequences over a few thousand distinct tokens:
 * unshared, their elements and id arrays would be most of the classifier's memory, all of it traced by
 * every major GC of the processes that load it.
 */
const sharedElements = new WeakMap<Vocabulary, Map<string, PatternElement>>();
function sharedElement(token: string, vocabulary: Vocabulary): PatternElement {
  let elements = sharedElements.get(vocabulary);
  if (!elements) sharedElements.set(vocabulary, (elements = new Map<string, PatternElement>()));
  let shared = elements.get(token);
  if (!shared) elements.set(token, (shared = element(token, vocabulary)));
  return shared;
}

/** Compiles one pattern into its sequences of elements. "word?" is sugar for "(word)?". */
export function compilePattern(source: string, vocabulary: Vocabulary): PatternElement[][] {
  const sugared = source.replace(/(^|\s)([^\s()]+)\?(?=\s|$)/g, '$1($2)?');
  const sequences = expand(parse(sugared)).filter((s) => s.length > 0);
  return sequences.map((s) => {
    const elements = s.map((token) => sharedElement(token, vocabulary));
    const first = elements[0];
    if (first.kind === 'gap' || first.kind === 'any' || first.kind === 'end') throw new Error(`lexicon pattern must start with a word: ${source}`);
    return elements;
  });
}
