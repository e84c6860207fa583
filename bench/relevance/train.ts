/**
 * Fits the relevance model (domain/relevance/weights.json) on the labelled set:
 *  - the need model (domain/relevance/score.ts, needOf): logistic regression of
 *    "some group fits this conversation" on which of the vocabulary's most
 *    frequent whole words the user's latest message has;
 *  - the pair model: logistic regression over the features of
 *    domain/relevance/score.ts (the need's log-odds one of them), with relevant
 *    pairs weighted up (they are about 1 in 90).
 * Prints the figures of 5-fold cross-validation by conversation (each
 * conversation scored by models that never saw it: the need the pair model is
 * fitted with is itself cross-validated within the training folds), then, with
 * --write, fits on the whole set and writes it. With --background it only
 * refits the background the topic similarity is read against
 * (domain/relevance/background.json; after a new text table) and exits: run it
 * before the fit, which reads the shipped one.
 *
 *   npx tsx bench/relevance/train.ts [--background | --write] [--curve]
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { format, resolveConfig } from 'prettier';
import { textEncoder, type TextEncoder } from '../../domain/understanding/encoder';
import { FIRST_WORD_ID } from '../../domain/understanding/text-model';
import { DEFAULT_MIN_RELEVANCE, FEATURES, logistic, needOf, type Features, type NeedModel, type RelevanceModel } from '../../domain/relevance/score';
import { figuresOf, needInputsOf, pairsOf, readJson, type LabelledConversation, type LabelledGroup, type Pair } from './dataset';
import { fitBackground } from './background';

/** Relevant pairs weigh this much more in the fit (chosen by cross-validation: it moves the 0.5 bar along the curve; 1.5 serves less where nothing fits than the model before topic_z and the need did, with more recall). */
const POSITIVE_WEIGHT = Number(process.env.POSITIVE_WEIGHT ?? 1.5);
const L2 = 1e-3;
const FOLDS = 5;
/** The need model reads words whose single token id is below this: the vocabulary's thousand most frequent words (how people ask, hardly what about). */
const NEED_VOCABULARY = 3000;
const NEED_L2 = 1;
const NEED_STEPS = 300;
const NEED_RATE = 0.5;

export interface NeedInput {
  words: Set<string>;
  has: boolean;
}

/** The need model's words of a conversation: those the need vocabulary has. */
function needWords(encoder: TextEncoder, words: Iterable<string>): string[] {
  const out: string[] = [];
  for (const word of words) {
    const ids = encoder.idsOf(word);
    if (ids?.length === 1 && ids[0] >= FIRST_WORD_ID && ids[0] < NEED_VOCABULARY) out.push(word);
  }
  return out;
}

/** Gradient descent on the L2-regularized log loss (sparse, a few hundred words). */
export function fitNeed(encoder: TextEncoder, inputs: readonly NeedInput[]): NeedModel {
  const data = inputs.map((c) => ({ words: needWords(encoder, c.words), y: c.has ? 1 : 0 }));
  const w = new Map<string, number>();
  let bias = 0;
  for (let step = 0; step < NEED_STEPS; step++) {
    const grad = new Map<string, number>();
    let gradBias = 0;
    for (const d of data) {
      let z = bias;
      for (const word of d.words) z += w.get(word) ?? 0;
      const err = 1 / (1 + Math.exp(-z)) - d.y;
      gradBias += err;
      for (const word of d.words) grad.set(word, (grad.get(word) ?? 0) + err);
    }
    bias -= (NEED_RATE * gradBias) / data.length;
    for (const word of new Set([...grad.keys(), ...w.keys()])) {
      const wk = w.get(word) ?? 0;
      w.set(word, wk - (NEED_RATE * ((grad.get(word) ?? 0) + NEED_L2 * wk)) / data.length);
    }
  }
  const round = (x: number) => Math.round(x * 1e3) / 1e3;
  const words = Object.fromEntries(
    [...w.entries()]
      .filter(([, v]) => Math.abs(v) >= 0.005)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => [k, round(v)]),
  );
  return { bias: round(bias), words };
}

/**
 * The pairs with each conversation's need as a model that never saw it scores
 * it: `fitted` (conversation indices) by FOLDS-fold cross-validation among
 * themselves, the others by a need model fitted on all of `fitted`.
 */
export function withNeed(encoder: TextEncoder, pairs: readonly Pair[], inputs: readonly NeedInput[], fitted: readonly number[]): Pair[] {
  const need = new Map<number, number>();
  const inFitted = new Set(fitted);
  const all = fitNeed(
    encoder,
    fitted.map((i) => inputs[i]),
  );
  inputs.forEach((c, i) => {
    if (!inFitted.has(i)) need.set(i, needOf(c.words, all));
  });
  // Inner folds by another split than the outer ones (i % FOLDS), so each has some of every outer training fold.
  for (let fold = 0; fold < FOLDS; fold++) {
    const inner = (i: number) => Math.floor(i / FOLDS) % FOLDS === fold;
    const model = fitNeed(
      encoder,
      fitted.filter((i) => !inner(i)).map((i) => inputs[i]),
    );
    for (const i of fitted) if (inner(i)) need.set(i, needOf(inputs[i].words, model));
  }
  return pairs.map((p) => ({ ...p, features: { ...p.features, need: need.get(p.conversation)!, need_phrase: need.get(p.conversation)! * p.features.phrase } }));
}

/** Newton's method (IRLS) on the weighted, L2-regularized log loss: a few steps converge for so few features. */
export function fit(pairs: readonly Pair[], positiveWeight = POSITIVE_WEIGHT): Omit<RelevanceModel, 'need'> {
  const k = FEATURES.length + 1; // the bias last
  const x = new Float64Array(pairs.length * k);
  pairs.forEach((p, i) => {
    FEATURES.forEach((f, j) => (x[i * k + j] = p.features[f]));
    x[i * k + k - 1] = 1;
  });
  const w = new Float64Array(k);
  for (let step = 0; step < 25; step++) {
    const grad = new Float64Array(k);
    const hessian = Array.from({ length: k }, () => new Float64Array(k));
    for (let i = 0; i < pairs.length; i++) {
      const row = x.subarray(i * k, (i + 1) * k);
      let z = 0;
      for (let j = 0; j < k; j++) z += w[j] * row[j];
      const p = 1 / (1 + Math.exp(-z));
      const weight = pairs[i].relevant ? positiveWeight : 1;
      const err = (p - (pairs[i].relevant ? 1 : 0)) * weight;
      const curvature = p * (1 - p) * weight;
      for (let a = 0; a < k; a++) {
        grad[a] += err * row[a];
        for (let b = 0; b < k; b++) hessian[a][b] += curvature * row[a] * row[b];
      }
    }
    for (let a = 0; a < k - 1; a++) {
      grad[a] += L2 * pairs.length * w[a];
      hessian[a][a] += L2 * pairs.length;
    }
    const delta = solve(hessian, grad);
    let change = 0;
    for (let j = 0; j < k; j++) {
      w[j] -= delta[j];
      change = Math.max(change, Math.abs(delta[j]));
    }
    if (change < 1e-6) break;
  }
  return { bias: w[k - 1], weights: Object.fromEntries(FEATURES.map((f, j) => [f, w[j]])) as Features };
}

/** Solves a x = b by Gaussian elimination with partial pivoting (a is small and symmetric positive definite). */
function solve(a: Float64Array[], b: Float64Array): Float64Array {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let pivot = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r][c]) > Math.abs(m[pivot][c])) pivot = r;
    [m[c], m[pivot]] = [m[pivot], m[c]];
    for (let r = c + 1; r < n; r++) {
      const f = m[r][c] / m[c][c];
      for (let j = c; j <= n; j++) m[r][j] -= f * m[c][j];
    }
  }
  const out = new Float64Array(n);
  for (let r = n - 1; r >= 0; r--) {
    let s = m[r][n];
    for (let j = r + 1; j < n; j++) s -= m[r][j] * out[j];
    out[r] = s / m[r][r];
  }
  return out;
}

export function crossValidated(encoder: TextEncoder, pairs: readonly Pair[], inputs: readonly NeedInput[], positiveWeight = POSITIVE_WEIGHT) {
  const scored: { conversation: number; score: number; relevant: boolean }[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const training = inputs.flatMap((_, i) => (i % FOLDS !== fold ? [i] : []));
    const folded = withNeed(encoder, pairs, inputs, training);
    const model = fit(
      folded.filter((p) => p.conversation % FOLDS !== fold),
      positiveWeight,
    );
    for (const p of folded)
      if (p.conversation % FOLDS === fold) scored.push({ conversation: p.conversation, score: logistic(model, p.features), relevant: p.relevant });
  }
  return { scored, conversations: inputs.length };
}

async function writeBackground() {
  const file = path.join(__dirname, '../../domain/relevance/background.json');
  const json = JSON.stringify(fitBackground(textEncoder()));
  writeFileSync(file, await format(json, { ...(await resolveConfig(file)), filepath: file }));
  console.log('wrote domain/relevance/background.json');
}

if (require.main === module && process.argv.includes('--background')) void writeBackground();
else if (require.main === module) {
  const encoder = textEncoder();
  const groups = readJson<LabelledGroup[]>('ad-groups.json');
  const conversations = readJson<LabelledConversation[]>('conversations.json');
  const pairs = pairsOf(encoder, groups, conversations);
  const inputs = needInputsOf(encoder, conversations);
  const { scored } = crossValidated(encoder, pairs, inputs);
  if (process.argv.includes('--curve'))
    for (const min of [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9])
      console.log(
        min,
        JSON.stringify(figuresOf(scored, min), (_, v: unknown) => (typeof v === 'number' ? Number(v.toFixed(3)) : v)),
      );
  const f = figuresOf(scored, DEFAULT_MIN_RELEVANCE);
  console.log(
    `cross-validated (${FOLDS} folds): ${Object.entries(f)
      .map(([k, v]) => `${k}=${Number.isInteger(v) ? v : v.toFixed(3)}`)
      .join(' ')}`,
  );
  if (process.argv.includes('--write')) {
    const need = fitNeed(encoder, inputs);
    const model = fit(
      withNeed(
        encoder,
        pairs,
        inputs,
        inputs.map((_, i) => i),
      ),
    );
    const round = (x: number) => Math.round(x * 1e4) / 1e4;
    const out = { bias: round(model.bias), weights: Object.fromEntries(FEATURES.map((k) => [k, round(model.weights[k])])), need };
    writeFileSync(path.join(__dirname, '../../domain/relevance/weights.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log('wrote domain/relevance/weights.json', JSON.stringify({ ...out, need: `${Object.keys(need.words).length} words` }));
  }
}
