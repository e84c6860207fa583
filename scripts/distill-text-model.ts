/**
 * Distils the text model into its static table (domain/understanding/text-model.ts),
 * once per machine: scripts/bootstrap.sh runs it when the table is missing.
 *
 * For every vocabulary token t, the transformer's mean-pooled output for the
 * one-token text "[CLS] t [SEP]" (Model2Vec's method), centred on the mean of
 * all tokens (the part every text shares says nothing about its topic), its
 * few strongest shared directions removed ("all-but-the-top": they carry word
 * frequency more than meaning), scaled to unit length, with its weight (tokenWeight).
 *
 *   tsx scripts/distill-text-model.ts [--dir DIR]
 */
import { renameSync, writeFileSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-node';
import {
  encodeStaticTable,
  FIRST_CHARACTER_ID,
  staticTablePath,
  TEXT_MODEL,
  textModelDir,
  tokenWeight,
  verifyModelFile,
} from '../domain/understanding/text-model';

const CLS = 101;
const SEP = 102;
const BATCH = 512;

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
  removeTopDirections(vectors, weights, rows, dims);
  const file = staticTablePath(dir);
  writeFileSync(`${file}.tmp`, encodeStaticTable({ rows, dims, weights, vectors }));
  renameSync(`${file}.tmp`, file);
  process.stderr.write(`[text-model] ${file}: ${rows} tokens x ${dims} in ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
}

/** How many of the strongest shared directions are removed (3 ranked the labelled set best of 0, 1, 2, 3 and 5). */
const TOP_DIRECTIONS = 3;

/** Removes the TOP_DIRECTIONS principal directions of the (centred, unit) token vectors, found by power iteration, then rescales each to unit length. */
export function removeTopDirections(vectors: Float32Array, weights: Float32Array, rows: number, dims: number): void {
  const directions: Float64Array[] = [];
  for (let d = 0; d < TOP_DIRECTIONS; d++) {
    // A fixed start: the same table on every machine.
    let v = Float64Array.from({ length: dims }, (_, j) => 1 + j / dims);
    for (let step = 0; step < 40; step++) {
      const next = new Float64Array(dims);
      for (let i = 0; i < rows; i++) {
        if (weights[i] === 0) continue;
        const row = vectors.subarray(i * dims, (i + 1) * dims);
        let along = 0;
        for (let j = 0; j < dims; j++) along += row[j] * v[j];
        for (let j = 0; j < dims; j++) next[j] += along * row[j];
      }
      for (const u of directions) {
        let along = 0;
        for (let j = 0; j < dims; j++) along += next[j] * u[j];
        for (let j = 0; j < dims; j++) next[j] -= along * u[j];
      }
      const norm = Math.sqrt(next.reduce((s, x) => s + x * x, 0)) || 1;
      v = next.map((x) => x / norm);
    }
    directions.push(v);
  }
  for (let i = 0; i < rows; i++) {
    if (weights[i] === 0) continue;
    const row = vectors.subarray(i * dims, (i + 1) * dims);
    for (const u of directions) {
      let along = 0;
      for (let j = 0; j < dims; j++) along += row[j] * u[j];
      for (let j = 0; j < dims; j++) row[j] -= along * u[j];
    }
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += row[j] * row[j];
    norm = Math.sqrt(norm) || 1;
    for (let j = 0; j < dims; j++) row[j] /= norm;
  }
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
