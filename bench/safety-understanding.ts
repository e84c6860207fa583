/**
 * Issue 46, section 4: does the shared understanding (the text encoder of
 * domain/understanding/, the one the relevance model and the signals read)
 * lift the safety classifier's recall on `never` categories for phrasing it
 * has not seen, as a second opinion beside the lexicon and its learned scorer?
 *
 *   npx tsx bench/safety-understanding.ts      (no services; the text model's files)
 *
 * The head: per `never` category a logistic regression over the encoder's
 * vectors of the window's user messages and of its assistant messages (two
 * unit vectors side by side), trained on what the learned scorer is trained on
 * (domain/safety/training/train-model.ts: the labelled set's tuned rows, model-training.jsonl, the
 * ordinary set's tuned rows), never on a held-out row. Its bar: the lowest at
 * which, out of fold (5 folds over those rows), at most 1% of the ordinary
 * training rows would be refused. The second opinion adds a `never` category
 * the head gives at least the bar to what the classifier found.
 *
 * Printed both ways (the classifier as shipped, and with the second opinion):
 * probe 9 (bench/safety/probe9.jsonl, written for this and measured here
 * first), the labelled set's held-out probes 7 and 8, the whole labelled set
 * (bench:safety's goals) and the ordinary set's fresh probe.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CATEGORY_TABLE, SENSITIVE_CATEGORIES, type SensitiveCategory } from '../domain/safety/categories';
import { classifyConversation, RECENT_MESSAGES, type ConversationMessage } from '../domain/safety/classifier/classifier';
import { evaluate, LABELLED_SET_PATH, ORDINARY_SET_PATH, readLabelledSet, trainingRows, type LabelledConversation } from '../domain/safety/training/evaluation';
import { textEncoder } from '../domain/understanding/encoder';

const NEVER = SENSITIVE_CATEGORIES.filter((c) => CATEGORY_TABLE[c].defaultPolicy === 'never');
const encoder = textEncoder();
const DIMS = encoder.dims * 2;
/** Unit vectors' coordinates are about 1/sqrt(dims): scaled to about 1 for the regression. */
const SCALE = Math.sqrt(encoder.dims);

function features(messages: readonly ConversationMessage[]): Float32Array {
  const window = messages.slice(-RECENT_MESSAGES);
  const text = (role: string) =>
    window
      .filter((m) => m.role === role)
      .map((m) => m.content)
      .join('\n');
  const x = new Float32Array(DIMS);
  x.set(encoder.encode(text('user')), 0);
  x.set(encoder.encode(text('assistant')), encoder.dims);
  for (let i = 0; i < DIMS; i++) x[i] *= SCALE;
  return x;
}

interface Head {
  w: Float32Array;
  b: number;
}

/** Full-batch gradient descent on the logistic loss with L2; deterministic. */
function trainHead(xs: Float32Array[], ys: number[], epochs = 300, rate = 0.5, l2 = 1e-3): Head {
  const w = new Float32Array(DIMS);
  let b = 0;
  const grad = new Float64Array(DIMS);
  // Positives are few: each counts as much as all negatives together, halved.
  const positives = ys.filter((y) => y === 1).length;
  const weightOf = (y: number) => (y === 1 ? (ys.length - positives) / Math.max(1, positives) / 2 : 1);
  for (let e = 0; e < epochs; e++) {
    grad.fill(0);
    let gb = 0;
    let total = 0;
    for (let n = 0; n < xs.length; n++) {
      const x = xs[n];
      let z = b;
      for (let i = 0; i < DIMS; i++) z += w[i] * x[i];
      const p = 1 / (1 + Math.exp(-z));
      const k = weightOf(ys[n]);
      const g = (p - ys[n]) * k;
      for (let i = 0; i < DIMS; i++) grad[i] += g * x[i];
      gb += g;
      total += k;
    }
    for (let i = 0; i < DIMS; i++) w[i] -= rate * (grad[i] / total + l2 * w[i]);
    b -= (rate * gb) / total;
  }
  return { w, b };
}

const probability = (h: Head, x: Float32Array) => {
  let z = h.b;
  for (let i = 0; i < DIMS; i++) z += h.w[i] * x[i];
  return 1 / (1 + Math.exp(-z));
};

function trainHeads(rows: LabelledConversation[], xs: Float32Array[]): Map<SensitiveCategory, Head> {
  return new Map(
    NEVER.map((c) => [
      c,
      trainHead(
        xs,
        rows.map((r) => (r.labels.includes(c) ? 1 : 0)),
      ),
    ]),
  );
}

function main() {
  const extra = path.join(path.dirname(LABELLED_SET_PATH), 'model-training.jsonl');
  const training = [...trainingRows(readLabelledSet()), ...readLabelledSet(extra), ...trainingRows(readLabelledSet(ORDINARY_SET_PATH))];
  const xs = training.map((r) => features(r.messages));

  // The bar, out of fold: each row scored by heads that did not see it.
  const folds = 5;
  const outOfFold = training.map(() => 0);
  for (let f = 0; f < folds; f++) {
    const inFold = (i: number) => i % folds === f;
    const rows = training.filter((_, i) => !inFold(i));
    const heads = trainHeads(
      rows,
      xs.filter((_, i) => !inFold(i)),
    );
    training.forEach((_, i) => {
      if (inFold(i)) outOfFold[i] = Math.max(...[...heads.values()].map((h) => probability(h, xs[i])));
    });
  }
  const ordinaryScores = training.flatMap((r, i) => (r.labels.length === 0 ? [outOfFold[i]] : []));
  const neverScores = training.flatMap((r, i) => (r.labels.some((l) => NEVER.includes(l)) ? [outOfFold[i]] : []));
  let bar = 0.99;
  for (let t = 0.5; t <= 0.99; t += 0.01) {
    if (ordinaryScores.filter((p) => p >= t).length / ordinaryScores.length <= 0.01) {
      bar = t;
      break;
    }
  }
  const oofRecall = neverScores.filter((p) => p >= bar).length / neverScores.length;
  console.log(
    `head: ${training.length} training rows (${neverScores.length} never, ${ordinaryScores.length} ordinary); bar ${bar.toFixed(2)}; out of fold: ordinary over the bar ${(ordinaryScores.filter((p) => p >= bar).length / ordinaryScores.length).toFixed(3)}, never rows over it ${oofRecall.toFixed(3)}`,
  );

  const heads = trainHeads(training, xs);
  const shipped = (m: ConversationMessage[]) => classifyConversation(m).categories;
  const withHead = (m: ConversationMessage[]) => {
    const found = new Set(classifyConversation(m).categories);
    const x = features(m);
    for (const [c, h] of heads) if (probability(h, x) >= bar) found.add(c);
    return [...found];
  };
  const probe9 = readFileSync(path.join(__dirname, 'safety', 'probe9.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as LabelledConversation);
  const set = readLabelledSet();
  const ordinary = readLabelledSet(ORDINARY_SET_PATH);
  const parts: [string, LabelledConversation[]][] = [
    ['probe 9 (first look)', probe9],
    ['probe 8', set.filter((r) => r.probe === 8)],
    ['probe 7', set.filter((r) => r.probe === 7)],
    ['whole labelled set', set],
    ['ordinary fresh probe', ordinary.filter((r) => r.holdout)],
  ];
  const f3 = (n: number) => n.toFixed(3);
  const summary: string[] = [];
  for (const [name, rows] of parts) {
    const a = evaluate(rows, shipped);
    const b = evaluate(rows, withHead);
    const line = (e: typeof a) => `recall_never=${f3(e.recallNever)} recall_all=${f3(e.recallAll)} false_block=${f3(e.falseBlock)}`;
    console.log(`${name.padEnd(22)} shipped: ${line(a)}   with the encoder head: ${line(b)}`);
    if (name.startsWith('probe 9'))
      summary.push(`probe9_recall_never=${f3(a.recallNever)}/${f3(b.recallNever)}`, `probe9_false_block=${f3(a.falseBlock)}/${f3(b.falseBlock)}`);
    if (name === 'whole labelled set')
      summary.push(`set_recall_never=${f3(a.recallNever)}/${f3(b.recallNever)}`, `set_false_block=${f3(a.falseBlock)}/${f3(b.falseBlock)}`);
    if (name === 'ordinary fresh probe') summary.push(`ordinary_false_block=${f3(a.falseBlock)}/${f3(b.falseBlock)}`);
    if (process.env.BENCH_VERBOSE) {
      for (const m of b.misses) console.log(`    missed with the head: ${m.id} [${m.labels.join(',')}] found [${m.found.join(',')}]`);
      for (const fb of b.falseBlocks) if (!a.falseBlocks.some((x) => x.id === fb.id)) console.log(`    refused by the head: ${fb.id} (${fb.found.join(',')})`);
    }
  }
  // Each figure as shipped / with the encoder head.
  console.log(`safety_understanding bar=${bar.toFixed(2)} ${summary.join(' ')}`);
}

main();
