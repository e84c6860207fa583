import { dot, length, normalize, type TextEncoder } from '../understanding/encoder';
import { normalizeWords } from '../understanding/conversation';
import { backgroundOf } from './background';

/**
 * What an ad group is about, made once when the auction's index loads (never
 * per request): its hints as an advertiser wrote them, and the ad's own copy,
 * which says which sense a one-word hint means ("bass" beside "lures for
 * largemouth" is the fish, not the guitar).
 */
export interface RelevanceProfile {
  /** The hints read together (unit vector). */
  hints: Float32Array;
  /** Hints and ad copy together: what the group is about (unit vector; the retrieval index's key). */
  topic: Float32Array;
  /** Ordinary conversations' similarity to the topic, its mean and spread (domain/relevance/background.ts). */
  topicMean: number;
  topicSpread: number;
  /** Each hint alone (unit vectors), and its normalized words for exact matches. */
  hintVectors: Float32Array[];
  phrases: string[];
}

export interface ProfileSource {
  hints: readonly string[];
  /** The ad's title and body (a group's first ad, or what the advertiser tests with). */
  copy: string;
}

/**
 * A group's profile. `texts` (one per index load) shares the vectors of texts
 * that recur, a hint many groups have or a group's only hint: a catalog's
 * hints repeat, and each vector is 1.5 kB. Shared vectors are never written.
 * The hints read together are the sum of each hint's (the words of
 * "a, b" are those of "a" and of "b"), so no hint is encoded twice.
 */
export function relevanceProfile(encoder: TextEncoder, source: ProfileSource, texts?: Map<string, Float32Array>): RelevanceProfile {
  const encode = (text: string): Float32Array => {
    let v = texts?.get(text);
    if (!v) {
      const sum = encoder.sum(text);
      sumLengths.set(sum, length(sum));
      v = normalize(sum);
      texts?.set(text, v);
    }
    return v;
  };
  const hintVectors = source.hints.map(encode);
  const hints = hintVectors.length === 1 ? hintVectors[0] : sumOf(hintVectors, encoder.dims);
  const copy = encoder.encode(source.copy);
  const topic = new Float32Array(encoder.dims);
  for (let j = 0; j < topic.length; j++) topic[j] = hints[j] + copy[j];
  normalize(topic);
  const background = backgroundOf(topic);
  return {
    hints,
    topic,
    topicMean: background.mean,
    topicSpread: background.spread,
    hintVectors,
    phrases: source.hints.map(normalizeWords).filter(Boolean),
  };
}

/** Each encoded text's length before normalizing (a unit vector times it is the text's sum again). */
const sumLengths = new WeakMap<Float32Array, number>();

/** The unit vector of the texts' sums together. */
function sumOf(vectors: readonly Float32Array[], dims: number): Float32Array {
  const out = new Float32Array(dims);
  for (const v of vectors) {
    const scale = sumLengths.get(v) ?? 1;
    for (let j = 0; j < dims; j++) out[j] += scale * v[j];
  }
  return normalize(out);
}

export const similarity = dot;
