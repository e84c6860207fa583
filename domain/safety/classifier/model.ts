/**
 * A small learned scorer beside the lexicon: one logistic regression per
 * sensitive category (one-vs-rest) over the words of the conversation, its
 * weights trained at build time (domain/safety/training/train-model.ts) and committed as JSON
 * (model-weights.json). No I/O at run time beyond the module's JSON import.
 *
 * Features, binary, per conversation (the last RECENT_MESSAGES messages):
 *   w:STEM        a word of a user message, stemmed like the lexicon's words
 *   b:STEM_STEM   two consecutive words of a user message
 *   n:STEM        a word a negator governs ("not suicidal": n:suicid)
 *   a:STEM        a word of an assistant message
 * Leetspeak and letter repeats are folded first ("su1c1de", "diiiie").
 */
import { LRUCache } from 'lru-cache';
import { SENSITIVE_CATEGORIES, type SensitiveCategory } from '../categories';
import { CLAUSE_BREAKERS, NEGATORS } from './negation';
import { MessageCache } from './message-cache';
import { foldCase, foldRepeats, stem, unleet } from './normalize';

export interface ModelMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface ModelWeights {
  /** Category order of the weight vectors. */
  categories: SensitiveCategory[];
  bias: number[];
  /** Feature -> one weight per category (0 where pruned). */
  features: Record<string, number[]>;
  /** How it was trained: for the README and whoever retrains it. */
  trainedOn: { conversations: number; sensitive: number; sources: string[]; epochs: number; l2: number };
}

const NEGATOR_SET = new Set(NEGATORS);
const BREAKER_SET = new Set(CLAUSE_BREAKERS);
/** Words a negator reaches past (the lexicon's negation walk is stricter; a model can weigh it). */
const NEGATION_SPAN = 3;
/** Function words: no unigram feature, and no bigram of two of them. */
const STOP = new Set(['the', 'a', 'an', 'and', 'to', 'of', 'is', 'it', 'for', 'on', 'in', 'at', 'be', 'this', 'that', 'with', 'are', 'was']);
export const MODEL_MESSAGES = 6;
const MAX_CHARS = 4000;

/**
 * Normalized words, least recently used evicted, bounded in bytes (a crafted
 * conversation of unique long tokens cannot grow it): an entry's size is its
 * key and value in UTF-16 plus a Map entry's overhead; tokens longer than
 * WORD_CACHE_MAX_WORD are never cached (no word is that long, and they would evict real ones).
 */
export const WORD_CACHE_MAX_BYTES = 8 * 1024 * 1024;
export const WORD_CACHE_MAX_WORD = 64;
const WORD_ENTRY_OVERHEAD_BYTES = 64;
const wordCache = new LRUCache<string, string>({
  maxSize: WORD_CACHE_MAX_BYTES,
  sizeCalculation: (value, key) => 2 * (key.length + value.length) + WORD_ENTRY_OVERHEAD_BYTES,
});

/** What the word cache holds now (entries, and bytes as it counts them). */
export const wordCacheUsage = () => ({ entries: wordCache.size, bytes: wordCache.calculatedSize });

// A token is a substring of its message: V8 may keep it as a slice that holds the whole message alive, so cache a copy.
const detached = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

function normalWord(raw: string): string {
  const cached = wordCache.get(raw);
  if (cached !== undefined) return cached;
  let w = raw.replace(/'/g, '');
  if (/[0-9@$]/.test(w) && /[a-z]/.test(w)) w = unleet(w) ?? w;
  w = foldRepeats(w) ?? w;
  const out = stem(w);
  if (raw.length <= WORD_CACHE_MAX_WORD) wordCache.set(detached(raw), detached(out));
  return out;
}

/** The feature keys of one message (with duplicates); see the header for their kinds. */
function messageFeatures(role: ModelMessage['role'], content: string): string[] {
  const out: string[] = [];
  const text = foldCase(content.length > MAX_CHARS ? content.slice(0, MAX_CHARS / 2) + '\n' + content.slice(-MAX_CHARS / 2) : content);
  const user = role === 'user';
  let previous = '';
  let negation = 0;
  for (const token of text.match(/[a-z0-9@$']+|[.,;:!?\n()"]/g) ?? []) {
    if (token.length === 1 && !/[a-z0-9]/.test(token)) {
      previous = '';
      negation = 0;
      continue;
    }
    const w = normalWord(token);
    if (w === '') continue;
    if (NEGATOR_SET.has(w) || NEGATOR_SET.has(token.replace(/'/g, ''))) {
      negation = NEGATION_SPAN;
      previous = w;
      continue;
    }
    if (BREAKER_SET.has(w)) negation = 0;
    if (!user) {
      if (!STOP.has(w)) out.push(`a:${w}`);
      continue;
    }
    if (negation > 0) {
      negation -= 1;
      out.push(`n:${w}`);
    } else if (!STOP.has(w)) out.push(`w:${w}`);
    if (previous !== '' && !(STOP.has(previous) && STOP.has(w))) out.push(`b:${previous}_${w}`);
    previous = w;
  }
  return out;
}

/** Per message text and role: a long chat resends its history with every ad request. */
const featureCache = new MessageCache<readonly string[]>(4096, 2_000_000, 8000);

export function clearModelFeatureCache(): void {
  featureCache.clear();
}

/** The feature keys of a conversation, deduplicated, in no particular order. */
export function modelFeatures(messages: readonly ModelMessage[]): Set<string> {
  const out = new Set<string>();
  for (let m = Math.max(0, messages.length - MODEL_MESSAGES); m < messages.length; m += 1) {
    const { role, content } = messages[m];
    const key = role === 'user' ? `u${content}` : `a${content}`;
    let features = featureCache.get(key);
    if (features === undefined) {
      features = messageFeatures(role, content);
      featureCache.set(key, features);
    }
    for (const f of features) out.add(f);
  }
  return out;
}

/** Probabilities per category (in SENSITIVE_CATEGORIES order) into `out`. */
export function modelScores(weights: ModelWeights, features: Iterable<string>, out: Float64Array): Float64Array {
  const n = weights.categories.length;
  for (let c = 0; c < n; c += 1) out[c] = weights.bias[c];
  for (const f of features) {
    const w = weights.features[f];
    if (w) for (let c = 0; c < n; c += 1) out[c] += w[c];
  }
  for (let c = 0; c < n; c += 1) out[c] = 1 / (1 + Math.exp(-out[c]));
  return out;
}

export interface TrainingExample {
  messages: readonly ModelMessage[];
  labels: readonly SensitiveCategory[];
}

export interface TrainingOptions {
  epochs: number;
  l2: number;
  learningRate: number;
  /** Features seen in fewer examples are dropped. */
  minCount: number;
  /** Weights smaller than this are pruned from the JSON. */
  prune: number;
  sources: string[];
}

/**
 * One-vs-rest logistic regression, full-batch gradient descent with Adagrad
 * and L2; positives weighted up to balance each category against the rest.
 * Deterministic (no shuffling, zero start).
 */
export function trainModel(examples: readonly TrainingExample[], options: TrainingOptions): ModelWeights {
  const featureSets = examples.map((e) => modelFeatures(e.messages));
  const counts = new Map<string, number>();
  for (const set of featureSets) for (const f of set) counts.set(f, (counts.get(f) ?? 0) + 1);
  const names = [...counts.keys()].filter((f) => (counts.get(f) ?? 0) >= options.minCount).sort();
  const index = new Map(names.map((f, i) => [f, i]));
  const rows = featureSets.map((set) => [...set].map((f) => index.get(f)).filter((i): i is number => i !== undefined));
  const categories = [...SENSITIVE_CATEGORIES];
  const weights = categories.map(() => new Float64Array(names.length));
  const bias = categories.map(() => 0);
  categories.forEach((category, c) => {
    const y = examples.map((e) => (e.labels.includes(category) ? 1 : 0));
    const positives = y.reduce<number>((s, v) => s + v, 0);
    const positiveWeight = positives === 0 ? 1 : Math.min(8, (examples.length - positives) / positives / 2);
    const w = weights[c];
    const g2 = new Float64Array(names.length).fill(1e-8);
    let biasG2 = 1e-8;
    for (let epoch = 0; epoch < options.epochs; epoch += 1) {
      const grad = new Float64Array(names.length);
      let biasGrad = 0;
      rows.forEach((row, i) => {
        let z = bias[c];
        for (const f of row) z += w[f];
        const p = 1 / (1 + Math.exp(-z));
        const err = (p - y[i]) * (y[i] === 1 ? positiveWeight : 1);
        biasGrad += err;
        for (const f of row) grad[f] += err;
      });
      for (let f = 0; f < names.length; f += 1) {
        const g = grad[f] / examples.length + options.l2 * w[f];
        g2[f] += g * g;
        w[f] -= (options.learningRate * g) / Math.sqrt(g2[f]);
      }
      const bg = biasGrad / examples.length;
      biasG2 += bg * bg;
      bias[c] -= (options.learningRate * bg) / Math.sqrt(biasG2);
    }
  });
  const features: Record<string, number[]> = {};
  names.forEach((name, f) => {
    const vector = categories.map((_, c) => weights[c][f]);
    if (vector.some((v) => Math.abs(v) >= options.prune)) features[name] = vector.map((v) => Math.round(v * 1000) / 1000);
  });
  return {
    categories,
    bias: bias.map((b) => Math.round(b * 1000) / 1000),
    features,
    trainedOn: {
      conversations: examples.length,
      sensitive: examples.filter((e) => e.labels.length > 0).length,
      sources: options.sources,
      epochs: options.epochs,
      l2: options.l2,
    },
  };
}
