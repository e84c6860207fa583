/**
 * Distils the text model into its static table (domain/understanding/text-model.ts),
 * once per machine: scripts/bootstrap.sh runs it when the table is missing.
 *
 * For every vocabulary token t, the transformer's mean-pooled output for the
 * one-token text "[CLS] t [SEP]" (Model2Vec's method), centred on the mean of
 * all tokens (the part every text shares says nothing about its topic) and
 * scaled to unit length. Each token's weight is smooth inverse frequency
 * a / (a + p(t)), p from the vocabulary's frequency order (Zipf): frequent
 * words weigh little, rare ones fully.
 *
 *   tsx scripts/distill-text-model.ts [--dir DIR]
 */
import { renameSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import { encodeStaticTable, staticTablePath, TEXT_MODEL, textModelDir, verifyModelFile } from '../domain/understanding/text-model';

/** The BERT uncased vocabulary: [PAD], [unusedN], [UNK], [CLS], [SEP], [MASK], single characters, then words by frequency from id 1996. */
const FIRST_CHARACTER_ID = 999;
const FIRST_WORD_ID = 1996;
const CLS = 101;
const SEP = 102;
/** SIF's a: tokens far more frequent than this share of text weigh little. */
const SIF_A = 1e-3;
const BATCH = 512;

export function tokenWeight(id: number, rows: number): number {
  if (id < FIRST_CHARACTER_ID) return 0; // special and unused
  // Single characters (punctuation, letters) rank with the most frequent words.
  const rank = id < FIRST_WORD_ID ? 1 : id - FIRST_WORD_ID + 1;
  const harmonic = Math.log(rows - FIRST_WORD_ID) + 0.5772;
  const p = 1 / (rank * harmonic);
  return SIF_A / (SIF_A + p);
}

async function distill(dir: string): Promise<void> {
  const onnx = verifyModelFile(dir, 'model.onnx');
  const tokenizer = JSON.parse(readFileSync(verifyModelFile(dir, 'tokenizer.json'), 'utf8')) as { model: { vocab: Record<string, number> } };
  const rows = Object.keys(tokenizer.model.vocab).length;
  const dims = TEXT_MODEL.dimensions;
  const session = await ort.InferenceSession.create(onnx, { intraOpNumThreads: 2, interOpNumThreads: 1 });
  const vectors = new Float32Array(rows * dims);
  const weights = new Float32Array(rows);
  const started = Date.now();
  for (let first = FIRST_CHARACTER_ID; first < rows; first += BATCH) {
    const n = Math.min(BATCH, rows - first);
    const ids = new BigInt64Array(n * 3);
    for (let b = 0; b < n; b++) {
      ids[b * 3] = BigInt(CLS);
      ids[b * 3 + 1] = BigInt(first + b);
      ids[b * 3 + 2] = BigInt(SEP);
    }
    const out = await session.run({
      input_ids: new ort.Tensor('int64', ids, [n, 3]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n * 3).fill(1n), [n, 3]),
      token_type_ids: new ort.Tensor('int64', new BigInt64Array(n * 3), [n, 3]),
    });
    const hidden = out.last_hidden_state.data as Float32Array;
    for (let b = 0; b < n; b++) {
      const row = (first + b) * dims;
      for (let j = 0; j < dims; j++) vectors[row + j] = (hidden[b * 3 * dims + j] + hidden[(b * 3 + 1) * dims + j] + hidden[(b * 3 + 2) * dims + j]) / 3;
      weights[first + b] = tokenWeight(first + b, rows);
    }
    if ((first - FIRST_CHARACTER_ID) % (BATCH * 10) === 0) process.stderr.write(`[text-model] distilled ${first}/${rows} tokens\n`);
  }
  centreAndNormalize(vectors, weights, rows, dims);
  const file = staticTablePath(dir);
  writeFileSync(`${file}.tmp`, encodeStaticTable({ rows, dims, weights, vectors }));
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`[text-model] ${file}: ${rows} tokens x ${dims} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

function centreAndNormalize(vectors: Float32Array, weights: Float32Array, rows: number, dims: number): void {
  const mean = new Float64Array(dims);
  let count = 0;
  for (let i = 0; i < rows; i++) {
    if (weights[i] === 0) continue;
    for (let j = 0; j < dims; j++) mean[j] += vectors[i * dims + j];
    count += 1;
  }
  for (let j = 0; j < dims; j++) mean[j] /= count;
  for (let i = 0; i < rows; i++) {
    const row = vectors.subarray(i * dims, (i + 1) * dims);
    if (weights[i] === 0) {
      row.fill(0);
      continue;
    }
    let norm = 0;
    for (let j = 0; j < dims; j++) {
      row[j] -= mean[j];
      norm += row[j] * row[j];
    }
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < dims; j++) row[j] /= norm;
  }
}

if (require.main === module) {
  const at = process.argv.indexOf('--dir');
  distill(at > 0 ? process.argv[at + 1] : textModelDir()).catch((e: unknown) => {
    process.stderr.write(`[text-model] ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  });
}
