/**
 * The sensitive-conversation classifier: a pure function over the chat
 * host's messages, no I/O, compiled once at module load.
 *
 * 1. Window: the last RECENT_MESSAGES messages (both roles) count for every
 *    category; older ones, back to NEVER_LOOKBACK_MESSAGES, only for `never`
 *    categories: a suicide disclosure ten turns ago still rules out ads, an
 *    old political aside does not block today's shopping question.
 * 2. Each message is folded (normalize.ts) and tokenized; unknown words get
 *    a second chance as leetspeak, letter repeats or a near spelling of a key
 *    word (fuzzy.ts).
 * 3. Near-miss phrases ("killer deals", "shoot photos") mask their words.
 * 4. Cue patterns (lexicon.ts) add their weight to their category once per
 *    conversation, unless negated (negation.ts). A category is detected at a
 *    score of 1: one strong cue, two medium ones, or a medium and two weak.
 * 5. Co-occurrence: a child in the conversation (a child-context cue) plus
 *    any harm category makes it `minors` too, and adds 0.5 to a minors cue.
 */
import { SENSITIVE_CATEGORIES, CATEGORY_TABLE, type SensitiveCategory } from '../categories';
import { FuzzyIndex } from './fuzzy';
import { AGE_TOKEN, BROAD_CUES, BROAD_NEAR_MISSES } from './lexicon-broad';
import { ASSISTANT_CONCERN, CHILD_CONTEXT, CUES, CUE_WEIGHTS, FUZZY_KEYS, FUZZY_STOP_WORDS, NEAR_MISSES, NUMBER_WORDS, ORDINAL_WORDS } from './lexicon';
import {
  CLAUSE_BREAKERS,
  isNegatedAt,
  NEGATION_TRANSPARENT,
  NEGATORS,
  ROLE_BREAKER,
  ROLE_NEGATOR,
  ROLE_OTHER,
  ROLE_TRANSPARENT,
  type WordRole,
} from './negation';
import { MessageCache } from './message-cache';
import { clearModelFeatureCache, modelFeatures, modelScores, type ModelWeights } from './model';
import MODEL_WEIGHTS from './model-weights.json';
import { foldCase, foldRepeats, stem, undouble, unleet } from './normalize';
import { compilePattern, Vocabulary, type PatternElement } from './patterns';

export interface ConversationMessage {
  role: 'user' | 'assistant';
  content: string;
}

export interface Classification {
  /** Detected categories, in table order; empty for an ordinary conversation. */
  categories: SensitiveCategory[];
}

export interface CueMatch {
  /** `assistant_concern`: the host's assistant refusing or referring to help (ASSISTANT_CONCERN), counted in its messages only. */
  category: SensitiveCategory | 'child_context' | 'assistant_concern';
  pattern: string;
  weight: number;
  /** Index in the messages given. */
  message: number;
  text: string;
  negated: boolean;
}

export interface Explanation extends Classification {
  /** The lexicon's score per category (detected alone at DETECTION_THRESHOLD). */
  scores: Record<SensitiveCategory, number>;
  /** The learned scorer's probability per category (model.ts); all 0 when MODEL_RULE.enabled is false. */
  model: Record<SensitiveCategory, number>;
  /** What the lexicon alone would have found. */
  lexiconCategories: SensitiveCategory[];
  /** Visible evidence the model may decide on alone (MODEL_RULE.minEvidence): a cue of any category, or the assistant's concern. */
  evidence: boolean;
  /** For each category found, the part of the rule that found it. */
  decidedBy: Partial<Record<SensitiveCategory, DecidedBy>>;
  matches: CueMatch[];
}

/** Three exchanges: enough to hold a disclosure and the turns that follow it. */
export const RECENT_MESSAGES = 6;
export const NEVER_LOOKBACK_MESSAGES = 24;
/** Characters read per message: its first and last halves of this (a pasted document is rarely the point). */
export const MAX_CHARS_PER_MESSAGE = 8000;
export const DETECTION_THRESHOLD = 1;
/**
 * How the learned scorer joins the lexicon: a category is also detected when
 * the lexicon has at least `minCueScore` for it and the model gives it at
 * least `withCue`, or when the model alone gives it `alone` (`neverWithCue`
 * and `neverAlone` for `never` categories). Chosen with domain/safety/training/cross-validate.ts on
 * out-of-fold probabilities over the training rows, never on a held-out probe.
 */
export const MODEL_RULE: ModelRule = {
  enabled: true,
  minCueScore: 0.25,
  withCue: 0.6,
  alone: 0.7,
  neverWithCue: 0.4,
  neverAlone: 0.5,
  minEvidence: 0.25,
  vetoBelowScore: 1.5,
  vetoUnder: 0.03,
};

export interface ModelRule {
  enabled: boolean;
  minCueScore: number;
  withCue: number;
  alone: number;
  /** The same thresholds for `never` categories: a missed disclosure costs more than a lost ad, so they may be lower. */
  neverWithCue: number;
  neverAlone: number;
  /**
   * The model alone (`alone`, `neverAlone`) decides a `never` category only
   * with evidence a reader can see: a cue of any category scoring
   * `minEvidence` or more, or the assistant's concern (ASSISTANT_CONCERN).
   * Words alone ("pump", "kids", "bar") drift a logistic regression over a
   * few hundred conversations, and a publisher cannot relax `never`. A
   * `block` category, which a publisher may allow, keeps `alone`.
   */
  minEvidence: number;
  /**
   * The model's veto: a `block` category the lexicon alone found with a score
   * under `vetoBelowScore` (one strong cue and some topic words) is dropped
   * when the model gives it under `vetoUnder`. A single cue fires on words,
   * whatever they are about ("murder" in "my boss will murder me", "chemo" in
   * a gift for a friend); the model reads the whole conversation. `never`
   * categories are never vetoed: a missed disclosure costs more than an ad.
   */
  vetoBelowScore: number;
  vetoUnder: number;
}

const CATEGORY_COUNT = SENSITIVE_CATEGORIES.length;
const CHILD_CONTEXT_GROUP = CATEGORY_COUNT;
const CONCERN_GROUP = CATEGORY_COUNT + 1;
const MASK_GROUP = -1;
const GROUP_COUNT = CATEGORY_COUNT + 2;
const MINORS = SENSITIVE_CATEGORIES.indexOf('minors');
/** Categories that, with a child in the conversation, make it about minors. */
const HARM_TO_CHILD = (['self_harm', 'sexual', 'violence_tragedy', 'hate_harassment', 'illegal_drugs'] as const).map((c) => SENSITIVE_CATEGORIES.indexOf(c));
const NEVER_GROUPS = new Uint8Array(GROUP_COUNT);
SENSITIVE_CATEGORIES.forEach((c, i) => {
  NEVER_GROUPS[i] = CATEGORY_TABLE[c].defaultPolicy === 'never' ? 1 : 0;
});
NEVER_GROUPS[CHILD_CONTEXT_GROUP] = 1;
NEVER_GROUPS[CONCERN_GROUP] = 1;

// Token kinds.
const WORD = 0;
const CARDINAL = 1;
const ORDINAL = 2;
const CLAUSE_END = 3;

interface CompiledCue {
  elements: readonly PatternElement[];
  group: number;
  weight: number;
  /** One lexicon line: its expansions count once together. */
  entry: number;
  source: string;
  /** Word ids of the cue's last word position after the first: one must be in the message, or the cue cannot match. */
  anchor: readonly number[] | null;
}

// ---- compile the lexicon (once) ----

/**
 * Cues starting with one word id, split by their second word when it is a
 * plain word: a token then only tries the cues its next token can continue
 * ("i" starts many cues, "i am" few).
 */
interface CueBucket {
  anySecond: CompiledCue[];
  bySecond: Map<number, CompiledCue[]>;
}

const vocabulary = new Vocabulary();
const byFirstWord = new Map<number, CueBucket>();
const masksByFirstWord = new Map<number, CueBucket>();
const teenFirst: CompiledCue[] = [];
const ordinalFirst: CompiledCue[] = [];
let entryCount = 0;

const pushOnce = (list: CompiledCue[], cue: CompiledCue) => {
  if (!list.includes(cue)) list.push(cue);
};

/**
 * Word sequences already compiled, per group: two lines that stem to the same
 * words ("death" and "deaths", "vote" and "voting") are one cue, at the higher
 * weight, not two that add up.
 */
const compiledSequences = new Map<string, CompiledCue>();
/** Lexicon lines that stem to an earlier line's words at another weight: for whoever edits the lexicon. */
export const DUPLICATE_CUES: { source: string; duplicateOf: string }[] = [];

function addCue(source: string, group: number, weight: number) {
  const entry = entryCount;
  entryCount += 1;
  for (const elements of compilePattern(source, vocabulary)) {
    const key = `${group}:${JSON.stringify(elements)}`;
    const existing = compiledSequences.get(key);
    if (existing) {
      if (weight !== existing.weight) DUPLICATE_CUES.push({ source, duplicateOf: existing.source });
      existing.weight = Math.max(existing.weight, weight);
      continue;
    }
    const lastWords = elements
      .slice(1)
      .reverse()
      .find((el) => el.kind === 'words');
    const anchor = lastWords?.kind === 'words' ? lastWords.ids : null;
    const cue: CompiledCue = { elements, group, weight, entry, source, anchor };
    compiledSequences.set(key, cue);
    const [first, second] = elements;
    if (first.kind === 'teen') {
      teenFirst.push(cue);
      continue;
    }
    if (first.kind === 'ordinal') {
      ordinalFirst.push(cue);
      continue;
    }
    if (first.kind !== 'words') continue;
    const index = group === MASK_GROUP ? masksByFirstWord : byFirstWord;
    for (const id of first.ids) {
      let bucket = index.get(id);
      if (!bucket) {
        bucket = { anySecond: [], bySecond: new Map() };
        index.set(id, bucket);
      }
      if (second?.kind !== 'words') {
        pushOnce(bucket.anySecond, cue);
        continue;
      }
      for (const next of second.ids) {
        const list = bucket.bySecond.get(next);
        if (list) pushOnce(list, cue);
        else bucket.bySecond.set(next, [cue]);
      }
    }
  }
}

/** The cues a word token may start: those whatever follows, then those its next word continues. */
function forEachCandidate(bucket: CueBucket, pos: number, end: number, visit: (cue: CompiledCue) => void) {
  for (const cue of bucket.anySecond) visit(cue);
  if (pos + 1 < end && ids[pos + 1] !== 0 && kinds[pos + 1] !== CLAUSE_END) {
    const list = bucket.bySecond.get(ids[pos + 1]);
    if (list) for (const cue of list) visit(cue);
  }
}

SENSITIVE_CATEGORIES.forEach((category, group) => {
  const cues = CUES[category];
  for (const tier of ['strong', 'medium', 'weak'] as const) for (const source of cues[tier] ?? []) addCue(source, group, CUE_WEIGHTS[tier]);
  const broad = BROAD_CUES[category];
  for (const tier of ['strong', 'medium', 'weak'] as const) for (const source of broad[tier] ?? []) addCue(source, group, CUE_WEIGHTS[tier]);
});
for (const source of CHILD_CONTEXT) addCue(source, CHILD_CONTEXT_GROUP, CUE_WEIGHTS.medium);
for (const source of ASSISTANT_CONCERN) addCue(source, CONCERN_GROUP, CUE_WEIGHTS.strong);
for (const source of [...NEAR_MISSES, ...BROAD_NEAR_MISSES]) addCue(source, MASK_GROUP, 0);
// Needed only while compiling: its keys are millions of characters the process would otherwise keep.
compiledSequences.clear();

const roleOfWord = new Map<number, WordRole>();
for (const w of NEGATORS) roleOfWord.set(vocabulary.add(w), ROLE_NEGATOR);
for (const w of NEGATION_TRANSPARENT) if (!roleOfWord.has(vocabulary.add(w))) roleOfWord.set(vocabulary.add(w), ROLE_TRANSPARENT);
for (const w of CLAUSE_BREAKERS) roleOfWord.set(vocabulary.add(w), ROLE_BREAKER);
const wordRoles = new Uint8Array(vocabulary.words.length);
for (const [id, role] of roleOfWord) wordRoles[id] = role;

const fuzzy = new FuzzyIndex(
  FUZZY_KEYS.map((word) => ({ word, value: vocabulary.idOfStem(stem(word)) })).filter((k) => k.value > 0),
  new Set(FUZZY_STOP_WORDS),
);
const numberWords = new Map(Object.entries(NUMBER_WORDS));
const ordinalWords = new Map(Object.entries(ORDINAL_WORDS));
const entryStamp = new Uint32Array(entryCount);
let generation = 0;
/** wordSeen[id] === messageGeneration: the word is in the message being scored. */
const wordSeen = new Uint32Array(vocabulary.words.length);
let messageGeneration = 0;

// ---- per-call buffers (reused: the classifier runs on every auction) ----

let capacity = 256;
let ids = new Int32Array(capacity);
let kinds = new Uint8Array(capacity);
let numbers = new Int16Array(capacity);
let masked = new Uint8Array(capacity);
let length = 0;
const scores = new Float64Array(GROUP_COUNT);
const probabilities = new Float64Array(CATEGORY_COUNT);
/** Per group: cues the conversation denies ("I'm not suicidal"), matched under a negation. */
const denials = new Float64Array(GROUP_COUNT);
const weights = MODEL_WEIGHTS as ModelWeights;
if (weights.categories.join() !== SENSITIVE_CATEGORIES.join())
  throw new Error('model-weights.json: categories differ from SENSITIVE_CATEGORIES; retrain (domain/safety/training/train-model.ts)');

function push(id: number, kind: number, value: number) {
  if (length === capacity) {
    capacity *= 2;
    const grow = <T extends Int32Array | Uint8Array | Int16Array>(old: T, make: (n: number) => T) => {
      const next = make(capacity);
      next.set(old);
      return next;
    };
    ids = grow(ids, (n) => new Int32Array(n));
    kinds = grow(kinds, (n) => new Uint8Array(n));
    numbers = grow(numbers, (n) => new Int16Array(n));
    masked = grow(masked, (n) => new Uint8Array(n));
  }
  ids[length] = id;
  kinds[length] = kind;
  numbers[length] = value;
  masked[length] = 0;
  wordSeen[id] = messageGeneration;
  length += 1;
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isLetter = (c: number) => c >= 97 && c <= 122;
/** Leet characters count as word characters only next to a letter ("$uicide", "k1ll" via digits). */
const isLeetSymbol = (c: number) => c === 64 || c === 36;

function pushWord(word: string) {
  const c0 = word.charCodeAt(0);
  if (isDigit(c0)) {
    let allDigits = true;
    for (let i = 1; i < word.length; i += 1)
      if (!isDigit(word.charCodeAt(i))) {
        allDigits = false;
        break;
      }
    if (allDigits) {
      push(vocabulary.idOfStem(word), CARDINAL, word.length <= 4 ? Number(word) : -1);
      return;
    }
    // "12yo", "16yr": the age and its unit.
    const age = AGE_TOKEN.exec(word);
    if (age) {
      push(vocabulary.idOfStem(age[1]), CARDINAL, Number(age[1]));
      push(vocabulary.idOfStem('yo'), WORD, -1);
      return;
    }
    const ordinal = /^(\d{1,2})(st|nd|rd|th)$/.exec(word);
    if (ordinal) {
      push(0, ORDINAL, Number(ordinal[1]));
      return;
    }
  }
  const known = vocabulary.idOfStem(stem(word));
  if (known !== 0) {
    push(known, WORD, -1);
    return;
  }
  const cardinal = numberWords.get(word);
  if (cardinal !== undefined) {
    push(0, CARDINAL, cardinal);
    return;
  }
  const ordinalWord = ordinalWords.get(word);
  if (ordinalWord !== undefined) {
    push(0, ORDINAL, ordinalWord);
    return;
  }
  push(resolveUnknown(word), WORD, -1);
}

/** Second chances for a word the lexicon does not know: leetspeak, repeats, misspelling. */
function resolveUnknown(word: string): number {
  const leet = unleet(word);
  if (leet !== null) {
    const id = vocabulary.idOfStem(stem(leet)) || vocabulary.idOfStem(stem(unleet(word, 'l') ?? leet));
    if (id !== 0) return id;
  }
  const repeats = foldRepeats(word);
  if (repeats !== null) {
    const id = vocabulary.idOfStem(stem(repeats)) || vocabulary.idOfStem(stem(undouble(repeats) ?? repeats));
    if (id !== 0) return id;
  }
  const fuzzyId = fuzzy.lookup(leet ?? word);
  return fuzzyId > 0 ? fuzzyId : 0;
}

/** Folded text to tokens, with a CLAUSE_END token for sentence punctuation. */
function tokenize(text: string) {
  const folded = foldCase(
    text.length > MAX_CHARS_PER_MESSAGE ? `${text.slice(0, MAX_CHARS_PER_MESSAGE / 2)}\n${text.slice(-MAX_CHARS_PER_MESSAGE / 2)}` : text,
  );
  let start = -1;
  let apostrophe = false;
  const flush = (end: number) => {
    if (start < 0) return;
    const raw = folded.slice(start, end);
    pushWord(apostrophe ? raw.replace(/'/g, '') : raw);
    start = -1;
    apostrophe = false;
  };
  for (let i = 0; i < folded.length; i += 1) {
    const c = folded.charCodeAt(i);
    if (isLetter(c) || isDigit(c)) {
      if (start < 0) start = i;
      continue;
    }
    // An apostrophe inside a word is dropped: "don't" -> "dont".
    if (c === 39 && start >= 0) {
      apostrophe = true;
      continue;
    }
    if (isLeetSymbol(c) && (isLetter(folded.charCodeAt(i + 1)) || (start >= 0 && isLetter(folded.charCodeAt(i - 1))))) {
      if (start < 0) start = i;
      continue;
    }
    flush(i);
    const sentencePunctuation = c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 10 || c === 40 || c === 41 || c === 34;
    // "4.5" and "1,000" are one number, not two clauses.
    if (sentencePunctuation && !((c === 46 || c === 44) && isDigit(folded.charCodeAt(i - 1)) && isDigit(folded.charCodeAt(i + 1)))) {
      if (length > 0 && kinds[length - 1] !== CLAUSE_END) push(0, CLAUSE_END, -1);
    }
  }
  flush(folded.length);
  if (length > 0 && kinds[length - 1] !== CLAUSE_END) push(0, CLAUSE_END, -1);
}

// ---- matching ----

/** The end (exclusive) of a match of `elements[k..]` from token `pos`, or -1. */
function matchFrom(elements: readonly PatternElement[], k: number, pos: number, end: number): number {
  if (k === elements.length) return pos;
  const el = elements[k];
  switch (el.kind) {
    case 'gap': {
      for (let skip = 0; skip <= el.max && pos + skip <= end; skip += 1) {
        if (skip > 0 && kinds[pos + skip - 1] === CLAUSE_END) break;
        const found = matchFrom(elements, k + 1, pos + skip, end);
        if (found >= 0) return found;
      }
      return -1;
    }
    case 'end':
      if (pos === end) return pos;
      return kinds[pos] === CLAUSE_END ? matchFrom(elements, k + 1, pos, end) : -1;
    default:
      if (pos >= end || !tokenFits(el, pos)) return -1;
      return matchFrom(elements, k + 1, pos + 1, end);
  }
}

function tokenFits(el: PatternElement, pos: number): boolean {
  const kind = kinds[pos];
  switch (el.kind) {
    case 'words': {
      if (kind === CLAUSE_END) return false;
      const id = ids[pos];
      if (id === 0) return false;
      for (let i = 0; i < el.ids.length; i += 1) if (el.ids[i] === id) return true;
      return false;
    }
    case 'any':
      return kind !== CLAUSE_END;
    case 'teen':
      return kind === CARDINAL && numbers[pos] >= 8 && numbers[pos] <= 17;
    case 'ordinal':
      return kind === ORDINAL && numbers[pos] >= 1 && numbers[pos] <= 12;
    default:
      return false;
  }
}

const roleAt = (i: number): WordRole => (kinds[i] === WORD ? (wordRoles[ids[i]] as WordRole) : ROLE_OTHER);
const clauseEndAt = (i: number): boolean => kinds[i] === CLAUSE_END || roleAt(i) === ROLE_BREAKER;

function applyMasks(end: number) {
  for (let pos = 0; pos < end; pos += 1) {
    if (kinds[pos] !== WORD) continue;
    const bucket = masksByFirstWord.get(ids[pos]);
    if (!bucket) continue;
    forEachCandidate(bucket, pos, end, (mask) => {
      const stop = matchFrom(mask.elements, 0, pos, end);
      if (stop > pos) for (let i = pos; i < stop; i += 1) masked[i] = 1;
    });
  }
}

function anchorSeen(anchor: readonly number[]): boolean {
  for (let i = 0; i < anchor.length; i += 1) if (wordSeen[anchor[i]] === messageGeneration) return true;
  return false;
}

type Collector = (cue: CompiledCue, start: number, stop: number, negated: boolean) => void;

/** Every cue the tokenized message matches, negated or not, with where it matched. */
function matchCues(end: number, onlyNever: boolean, visit: Collector) {
  const tryCue = (cue: CompiledCue, pos: number) => {
    if (onlyNever && !NEVER_GROUPS[cue.group]) return;
    if (cue.anchor !== null && !anchorSeen(cue.anchor)) return;
    const stop = matchFrom(cue.elements, 0, pos, end);
    if (stop <= pos) return;
    for (let i = pos + 1; i < stop; i += 1) if (masked[i]) return;
    visit(cue, pos, stop, isNegatedAt(pos, roleAt, clauseEndAt));
  };
  for (let pos = 0; pos < end; pos += 1) {
    if (masked[pos]) continue;
    const kind = kinds[pos];
    if (kind === WORD) {
      const bucket = byFirstWord.get(ids[pos]);
      if (bucket) forEachCandidate(bucket, pos, end, (cue) => tryCue(cue, pos));
    } else if (kind === CARDINAL) {
      // A number the lexicon names ("988", "911") starts word cues too.
      const bucket = ids[pos] !== 0 ? byFirstWord.get(ids[pos]) : undefined;
      if (bucket) forEachCandidate(bucket, pos, end, (cue) => tryCue(cue, pos));
      for (const cue of teenFirst) tryCue(cue, pos);
    } else if (kind === ORDINAL) {
      for (const cue of ordinalFirst) tryCue(cue, pos);
    }
  }
}

/** A matched cue adds its weight once per conversation (per lexicon line). */
function addHit(cue: CompiledCue) {
  if (entryStamp[cue.entry] === generation) return;
  entryStamp[cue.entry] = generation;
  scores[cue.group] += cue.weight;
}

/** Tokenizes one message into the buffers and masks its near misses. */
function prepareMessage(content: string) {
  length = 0;
  messageGeneration += 1;
  if (messageGeneration === 0xffffffff) {
    wordSeen.fill(0);
    messageGeneration = 1;
  }
  tokenize(content);
  applyMasks(length);
}

/**
 * The cues a message's text matches, not negated: all a message contributes
 * to the scores, whatever its role or place in the window, so it is cached by
 * its text (a long chat resends its history with every ad request).
 */
/** A message's cues: those it says, and those it denies (matched under a negation). */
interface CueHits {
  said: readonly CompiledCue[];
  denied: readonly CompiledCue[];
}
const cueHitCache = new MessageCache<CueHits>(4096, 2_000_000, MAX_CHARS_PER_MESSAGE);

function cueHitsOf(content: string): CueHits {
  const cached = cueHitCache.get(content);
  if (cached !== undefined) return cached;
  prepareMessage(content);
  const hits = { said: [] as CompiledCue[], denied: [] as CompiledCue[] };
  matchCues(length, false, (cue, _start, _stop, negated) => {
    const list = negated ? hits.denied : hits.said;
    if (!list.includes(cue)) list.push(cue);
  });
  cueHitCache.set(content, hits);
  return hits;
}

/** Empties the per-message caches (cue hits and model features): for benches that time cold classifications. */
export function clearMessageCaches(): void {
  cueHitCache.clear();
  clearModelFeatureCache();
}

function run(
  messages: readonly ConversationMessage[],
  collect: ((cue: CompiledCue, message: number, start: number, stop: number, negated: boolean) => void) | null,
  why?: Partial<Record<SensitiveCategory, DecidedBy>>,
): SensitiveCategory[] {
  generation += 1;
  if (generation === 0xffffffff) {
    entryStamp.fill(0);
    generation = 1;
  }
  scores.fill(0);
  denials.fill(0);
  const first = Math.max(0, messages.length - NEVER_LOOKBACK_MESSAGES);
  const recentFrom = messages.length - RECENT_MESSAGES;
  for (let m = messages.length - 1; m >= first; m -= 1) {
    const onlyNever = m < recentFrom;
    // The assistant's concern counts in its own messages only; the user saying "are you ok" is not it.
    const assistant = messages[m].role === 'assistant';
    if (collect) {
      prepareMessage(messages[m].content);
      matchCues(length, onlyNever, (cue, start, stop, negated) => {
        if (cue.group === CONCERN_GROUP && (!assistant || negated)) return;
        collect(cue, m, start, stop, negated);
        if (!negated) addHit(cue);
        else denials[cue.group] += 1;
      });
    } else {
      const hits = cueHitsOf(messages[m].content);
      for (const cue of hits.said) if ((!onlyNever || NEVER_GROUPS[cue.group]) && (assistant || cue.group !== CONCERN_GROUP)) addHit(cue);
      for (const cue of hits.denied) if (!onlyNever || NEVER_GROUPS[cue.group]) denials[cue.group] += 1;
    }
  }
  const child = scores[CHILD_CONTEXT_GROUP];
  if (child >= 0.5 - 1e-9) {
    if (HARM_TO_CHILD.some((g) => scores[g] >= DETECTION_THRESHOLD - 1e-9)) scores[MINORS] = Math.max(scores[MINORS], DETECTION_THRESHOLD);
    // A concern about minors (a secret kept with an adult, "too young") with a child present.
    else if (scores[MINORS] > 0) scores[MINORS] += 0.5;
  }
  if (MODEL_RULE.enabled) modelScores(weights, modelFeatures(messages), probabilities);
  return decideCategories(scores, probabilities, MODEL_RULE, denials, scores[CONCERN_GROUP] > 0, why);
}

/** A cue a reader can see: one of any category at `minEvidence` or more, or the assistant's concern. */
function hasEvidence(lexicon: ArrayLike<number>, rule: ModelRule, concern: boolean): boolean {
  if (concern) return true;
  for (let g = 0; g < CATEGORY_COUNT; g += 1) if (lexicon[g] >= rule.minEvidence - 1e-9) return true;
  return false;
}

/**
 * The categories from the lexicon's scores and the model's probabilities (in
 * SENSITIVE_CATEGORIES order): shared by the classifier and domain/safety/training/cross-validate.ts,
 * which tries rules on out-of-fold probabilities.
 */
export function decideCategories(
  lexicon: ArrayLike<number>,
  model: ArrayLike<number>,
  rule: ModelRule,
  denied?: ArrayLike<number>,
  concern = false,
  why?: Partial<Record<SensitiveCategory, DecidedBy>>,
): SensitiveCategory[] {
  const categories: SensitiveCategory[] = [];
  const evidence = hasEvidence(lexicon, rule, concern);
  for (let g = 0; g < CATEGORY_COUNT; g += 1) {
    const p = rule.enabled ? model[g] : 0;
    const never = NEVER_GROUPS[g] === 1;
    const alone = !never ? rule.alone : evidence ? rule.neverAlone : Infinity;
    const withCue = never ? rule.neverWithCue : rule.withCue;
    // A category the conversation only denies ("I'm not suicidal, I want running shoes") is not the model's to find:
    // its words are all there, and the model reads no negation.
    const onlyDenied = (denied?.[g] ?? 0) > 0 && lexicon[g] <= 0;
    const byModel = rule.enabled && !onlyDenied && (p >= alone || (lexicon[g] >= rule.minCueScore - 1e-9 && p >= withCue));
    const byLexicon = lexicon[g] >= DETECTION_THRESHOLD - 1e-9;
    const vetoed = rule.enabled && !NEVER_GROUPS[g] && lexicon[g] < rule.vetoBelowScore - 1e-9 && p < rule.vetoUnder;
    if ((byLexicon && !vetoed) || byModel) {
      categories.push(SENSITIVE_CATEGORIES[g]);
      if (why) why[SENSITIVE_CATEGORIES[g]] = byLexicon && !vetoed ? 'lexicon' : p >= alone ? 'model_alone_with_evidence' : 'model_with_cue';
    }
  }
  return categories;
}

/** Which part of the rule found a category: the lexicon's score, the model with a cue of the category, or the model with evidence elsewhere. */
export type DecidedBy = 'lexicon' | 'model_with_cue' | 'model_alone_with_evidence';

/** The sensitive categories of a conversation (the chat host's messages, oldest first). */
export function classifyConversation(messages: readonly ConversationMessage[]): Classification {
  return { categories: run(messages, null) };
}

/** classifyConversation with the scores and every cue that matched: for tests, the bench and tuning. */
export function explainConversation(messages: readonly ConversationMessage[]): Explanation {
  const matches: CueMatch[] = [];
  const decidedBy: Partial<Record<SensitiveCategory, DecidedBy>> = {};
  const categories = run(
    messages,
    (cue, message, start, stop, negated) => {
      const words: string[] = [];
      for (let i = start; i < stop; i += 1)
        words.push(kinds[i] === CLAUSE_END ? '.' : kinds[i] === WORD ? vocabulary.words[ids[i]] || '?' : String(numbers[i]));
      matches.push({
        category: cue.group === CHILD_CONTEXT_GROUP ? 'child_context' : cue.group === CONCERN_GROUP ? 'assistant_concern' : SENSITIVE_CATEGORIES[cue.group],
        pattern: cue.source,
        weight: cue.weight,
        message,
        text: words.join(' '),
        negated,
      });
    },
    decidedBy,
  );
  const round = (n: number) => Math.round(n * 100) / 100;
  const scoreRecord = Object.fromEntries(SENSITIVE_CATEGORIES.map((c, g) => [c, round(scores[g])])) as Record<SensitiveCategory, number>;
  const model = Object.fromEntries(SENSITIVE_CATEGORIES.map((c, g) => [c, MODEL_RULE.enabled ? round(probabilities[g]) : 0])) as Record<
    SensitiveCategory,
    number
  >;
  const lexiconCategories = SENSITIVE_CATEGORIES.filter((_, g) => scores[g] >= DETECTION_THRESHOLD - 1e-9);
  const evidence = hasEvidence(scores, MODEL_RULE, scores[CONCERN_GROUP] > 0);
  return { categories, scores: scoreRecord, model, lexiconCategories, evidence, decidedBy, matches };
}
