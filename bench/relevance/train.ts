/**
 * Fits the relevance model (domain/relevance/weights.json) on the labelled set:
 * logistic regression over the features of domain/relevance/score.ts, with
 * relevant pairs weighted up (they are about 1 in 90). Prints the figures of
 * 5-fold cross-validation by conversation (each conversation scored by a model
 * that never saw it), then, with --write, fits on the whole set and writes it.
 *
 *   npx tsx bench/relevance/train.ts [--write]
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { textEncoder } from '../../domain/understanding/encoder';
import { DEFAULT_MIN_RELEVANCE, FEATURES, logistic, type Features, type RelevanceModel } from '../../domain/relevance/score';
import { figuresOf, pairsOf, readJson, type LabelledConversation, type LabelledGroup, type Pair } from './dataset';

/** Relevant pairs weigh this much more in the fit (chosen by cross-validation: at 0.5 it trades recall for serving less where nothing fits). */
const POSITIVE_WEIGHT = Number(process.env.POSITIVE_WEIGHT ?? 2);
const L2 = 1e-3;
const FOLDS = 5;

/** Newton's method (IRLS) on the weighted, L2-regularized log loss: a few steps converge for so few features. */
export function fit(pairs: readonly Pair[], positiveWeight = POSITIVE_WEIGHT): RelevanceModel {
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

export function crossValidated(pairs: readonly Pair[], conversations: number, positiveWeight = POSITIVE_WEIGHT) {
  const scored: { conversation: number; score: number; relevant: boolean }[] = [];
  for (let fold = 0; fold < FOLDS; fold++) {
    const model = fit(
      pairs.filter((p) => p.conversation % FOLDS !== fold),
      positiveWeight,
    );
    for (const p of pairs)
      if (p.conversation % FOLDS === fold) scored.push({ conversation: p.conversation, score: logistic(model, p.features), relevant: p.relevant });
  }
  return { scored, conversations };
}

if (require.main === module) {
  const groups = readJson<LabelledGroup[]>('ad-groups.json');
  const conversations = readJson<LabelledConversation[]>('conversations.json');
  const pairs = pairsOf(textEncoder(), groups, conversations);
  const { scored } = crossValidated(pairs, conversations.length);
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
    const model = fit(pairs);
    const round = (x: number) => Math.round(x * 1e4) / 1e4;
    const out = { bias: round(model.bias), weights: Object.fromEntries(FEATURES.map((k) => [k, round(model.weights[k])])) };
    writeFileSync(path.join(__dirname, '../../domain/relevance/weights.json'), `${JSON.stringify(out, null, 2)}\n`);
    console.log('wrote domain/relevance/weights.json', JSON.stringify(out));
  }
}
