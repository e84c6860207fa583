/**
 * Approximate nearest neighbours by inner product over unit vectors (an IVF
 * index): the vectors are projected on their principal subspace (few dims:
 * cheap to scan), clustered by spherical k-means into about sqrt(n) lists, and
 * a query scans only the lists whose centroids are nearest it, then reranks
 * the best of what it scanned by the exact inner product on the full vectors.
 * Per-query cost grows with sqrt(n), not n. Small sets are scanned exactly.
 *
 * Building is a generator that pauses between chunks of work, so a caller on
 * an event loop can build a large index without holding the loop (buildAsync);
 * buildSync runs it through.
 */
import { dotAt } from './vectors';

export interface IvfOptions {
  /** Below this many vectors every query is exact (a scan of all of them). */
  exactBelow?: number;
  /** Dimensions of the projected codes the lists hold. */
  codeDims?: number;
  /** Lists scanned per query. */
  probes?: number;
  /** Candidates reranked on the full vectors, at least this many (and at least 4k). */
  rerank?: number;
  /** Lists per square root of the number of vectors. */
  listsPerRoot?: number;
  /** Lloyd iterations of the k-means, on a sample. */
  iterations?: number;
  /** Random source; by default a fixed seed, so every build of the same vectors is the same index. */
  random?: () => number;
}

const DEFAULTS = { exactBelow: 2048, codeDims: 64, probes: 8, rerank: 320, listsPerRoot: 1, iterations: 5 };

interface IvfParts {
  /** Projection rows (codeDims x dims); empty when exact. */
  projection: Float32Array;
  codeDims: number;
  /** Unit centroids (lists x codeDims). */
  centroids: Float32Array;
  /** List l holds positions offsets[l] .. offsets[l+1] of ids and codes. */
  offsets: Int32Array;
  ids: Int32Array;
  codes: Float32Array;
}

interface ReusableModel {
  projection: Float32Array;
  centroids: Float32Array;
  codes: Float32Array;
  at(vector: Float32Array): number | undefined;
  listAt(at: number): number;
}

/** The built index; `vectors[i]` are the caller's own arrays (not copied). */
export class IvfIndex {
  private readonly projection: Float32Array;
  private readonly codeDims: number;
  private readonly centroids: Float32Array;
  private readonly offsets: Int32Array;
  private readonly ids: Int32Array;
  private readonly codes: Float32Array;

  /** Each vector's position and list, made when a later build first reuses this one. */
  private where: { at: Map<Float32Array, number>; listOf: Int32Array } | undefined;

  /** Made by buildSync / buildAsync. */
  constructor(
    private readonly vectors: readonly Float32Array[],
    private readonly dims: number,
    private readonly search: { probes: number; rerank: number },
    parts: IvfParts,
  ) {
    ({ projection: this.projection, codeDims: this.codeDims, centroids: this.centroids, offsets: this.offsets, ids: this.ids, codes: this.codes } = parts);
  }

  get size(): number {
    return this.vectors.length;
  }

  get lists(): number {
    return this.offsets.length - 1;
  }

  /** Bytes the index holds beyond the caller's vectors. */
  get bytes(): number {
    return this.projection.byteLength + this.centroids.byteLength + this.offsets.byteLength + this.ids.byteLength + this.codes.byteLength;
  }

  static buildSync(vectors: readonly Float32Array[], options: IvfOptions = {}, base?: IvfIndex): IvfIndex {
    const steps = build(vectors, options, base);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /**
   * Builds in slices of at most `sliceMs` of the event loop, yielding (setImmediate) between them.
   * `base`: the last build; when most vectors are the very arrays it held, their codes and lists are kept.
   */
  static async buildAsync(vectors: readonly Float32Array[], options: IvfOptions = {}, base?: IvfIndex, sliceMs = 4): Promise<IvfIndex> {
    const steps = build(vectors, options, base);
    let sliceStart = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }

  /** What a later build reuses (undefined when exact, or when its lists would not suit that many vectors). */
  reusable(dims: number, codeDims: number, lists: number): ReusableModel | undefined {
    if (this.lists === 0 || dims !== this.dims || codeDims !== this.codeDims || lists > 2 * this.lists || 2 * lists < this.lists) return undefined;
    if (!this.where) {
      const where = new Map<Float32Array, number>();
      const listOf = new Int32Array(this.ids.length);
      for (let l = 0; l < this.lists; l++) {
        for (let at = this.offsets[l]; at < this.offsets[l + 1]; at++) {
          where.set(this.vectors[this.ids[at]], at);
          listOf[at] = l;
        }
      }
      this.where = { at: where, listOf };
    }
    const { at, listOf } = this.where;
    return { projection: this.projection, centroids: this.centroids, codes: this.codes, at: (v) => at.get(v), listAt: (i) => listOf[i] };
  }

  /** The ids of (about) the k vectors with the largest inner product with q, best first. */
  nearest(q: Float32Array, k: number): number[] {
    const n = this.vectors.length;
    if (k <= 0 || n === 0) return [];
    if (this.lists === 0) {
      const top = new TopK(Math.min(k, n));
      for (let i = 0; i < n; i++) top.offer(dotAt(q, this.vectors[i], 0, this.dims), i);
      return top.sorted();
    }
    const cd = this.codeDims;
    const pq = new Float32Array(cd);
    project(q, this.projection, this.dims, cd, pq, 0);
    const { probes, rerank } = this.search;
    const lists = new TopK(Math.min(probes, this.lists));
    for (let l = 0; l < this.lists; l++) lists.offer(dotAt(pq, this.centroids, l * cd, cd), l);
    const approx = new TopK(Math.max(rerank, 4 * k));
    const { offsets, codes, ids } = this;
    for (const l of lists.ids()) {
      const end = offsets[l + 1];
      for (let at = offsets[l]; at < end; at++) approx.offer(dotAt(pq, codes, at * cd, cd), ids[at]);
    }
    const exact = new TopK(k);
    for (const i of approx.ids()) exact.offer(dotAt(q, this.vectors[i], 0, this.dims), i);
    return exact.sorted();
  }
}

/** Past this share of vectors new to the last build, a rebuild trains its own projection and lists. */
const REUSE_AT_MOST = 0.2;

function* build(vectors: readonly Float32Array[], options: IvfOptions, base?: IvfIndex): Generator<void, IvfIndex> {
  const o = { ...DEFAULTS, ...options };
  const random = options.random ?? seededRandom(0x1d0c);
  const n = vectors.length;
  const dims = vectors[0]?.length ?? 0;
  const construct = (parts: IvfParts) => new IvfIndex(vectors, dims, { probes: o.probes, rerank: o.rerank }, parts);
  if (n < o.exactBelow || dims === 0) {
    return construct({
      projection: new Float32Array(0),
      codeDims: 0,
      centroids: new Float32Array(0),
      offsets: new Int32Array(1),
      ids: new Int32Array(0),
      codes: new Float32Array(0),
    });
  }
  const cd = Math.min(o.codeDims, dims);
  const lists = Math.max(1, Math.round(o.listsPerRoot * Math.sqrt(n)));
  const codesById = new Float32Array(n * cd);
  const assign = new Int32Array(n).fill(-1);
  // A rebuild over mostly the same vectors (a reload of part of a catalog) keeps the last build's projection and lists.
  let model = base?.reusable(dims, cd, lists);
  if (model) {
    let fresh = 0;
    for (let i = 0; i < n; i++) {
      const at = model.at(vectors[i]);
      if (at === undefined) fresh++;
      else {
        codesById.set(model.codes.subarray(at * cd, (at + 1) * cd), i * cd);
        assign[i] = model.listAt(at);
      }
      if ((i & 1023) === 1023) yield;
    }
    if (fresh > REUSE_AT_MOST * n) model = undefined;
  }
  const trained = model ?? (yield* trainModel(vectors, cd, lists, o.iterations, random));
  const projection = trained.projection;
  const centroids = trained.centroids;
  for (let i = 0; i < n; i++) {
    if (!model || assign[i] < 0) {
      project(vectors[i], projection, dims, cd, codesById, i * cd);
      assign[i] = -1;
    }
    if ((i & 255) === 255) yield;
  }
  for (let i = 0; i < n; i++) {
    if (assign[i] < 0) assign[i] = nearestRow(codesById, i * cd, centroids, cd);
    if ((i & 127) === 127) yield;
  }
  // The lists' count is the centroids' (a reused model's may differ from what this many vectors would get).
  const count = centroids.length / cd;
  const sizes = new Int32Array(count);
  for (let i = 0; i < n; i++) sizes[assign[i]]++;

  // 4. The lists, each contiguous (ids and codes in list order).
  const offsets = new Int32Array(count + 1);
  for (let l = 0; l < count; l++) offsets[l + 1] = offsets[l] + sizes[l];
  const fill = offsets.slice(0, count);
  const ids = new Int32Array(n);
  const codes = new Float32Array(n * cd);
  for (let i = 0; i < n; i++) {
    const at = fill[assign[i]]++;
    ids[at] = i;
    codes.set(codesById.subarray(i * cd, (i + 1) * cd), at * cd);
  }
  return construct({ projection, codeDims: cd, centroids, offsets, ids, codes });
}

/**
 * The principal subspace of a sample (uncentered: it is inner products that
 * must survive the projection), and spherical k-means over the sample's codes.
 */
function* trainModel(
  vectors: readonly Float32Array[],
  cd: number,
  lists: number,
  iterations: number,
  random: () => number,
): Generator<void, { projection: Float32Array; centroids: Float32Array }> {
  const n = vectors.length;
  const dims = vectors[0].length;
  const sample = sampleOf(n, Math.min(n, Math.max(2048, lists * 32)), random);
  const moment = new Float64Array(dims * dims);
  for (const i of sample.subarray(0, 2048)) {
    const v = vectors[i];
    for (let a = 0; a < dims; a++) {
      const va = v[a];
      const row = a * dims;
      for (let b = a; b < dims; b++) moment[row + b] += va * v[b];
    }
    yield;
  }
  for (let a = 0; a < dims; a++) for (let b = 0; b < a; b++) moment[a * dims + b] = moment[b * dims + a];
  const projection = yield* principalRows(moment, dims, cd, random);
  const codes = new Float32Array(sample.length * cd);
  for (let t = 0; t < sample.length; t++) {
    project(vectors[sample[t]], projection, dims, cd, codes, t * cd);
    if ((t & 255) === 255) yield;
  }
  return { projection, centroids: yield* kmeans(codes, sample.length, cd, lists, iterations, random) };
}

/** Unit centroids (lists x dims) of spherical k-means over a sample of the rows of `points`. */
function* kmeans(points: Float32Array, n: number, dims: number, lists: number, iterations: number, random: () => number): Generator<void, Float32Array> {
  const train = sampleOf(n, Math.min(n, lists * 32), random);
  const centroids = new Float32Array(lists * dims);
  train.slice(0, lists).forEach((i, l) => centroids.set(points.subarray(i * dims, (i + 1) * dims), l * dims));
  normalizeRows(centroids, dims);
  for (let iteration = 0; iteration < iterations; iteration++) {
    const sums = new Float32Array(lists * dims);
    const counts = new Int32Array(lists);
    for (let t = 0; t < train.length; t++) {
      const i = train[t];
      const l = nearestRow(points, i * dims, centroids, dims);
      counts[l]++;
      for (let r = 0; r < dims; r++) sums[l * dims + r] += points[i * dims + r];
      if ((t & 127) === 127) yield;
    }
    // An empty list takes a random training point (k-means' usual restart).
    for (let l = 0; l < lists; l++) {
      if (counts[l] === 0) {
        const i = train[Math.floor(random() * train.length)];
        sums.set(points.subarray(i * dims, (i + 1) * dims), l * dims);
      }
    }
    normalizeRows(sums, dims);
    centroids.set(sums);
  }
  return centroids;
}

/**
 * The row of `rows` (x dims) with the largest inner product with points[at .. at + dims]
 * (the first such row on a tie): every row's product by project's kernel, then the largest.
 */
function nearestRow(points: Float32Array, at: number, rows: Float32Array, dims: number): number {
  const count = rows.length / dims;
  if (scores.length < count) scores = new Float32Array(count);
  project(points, rows, dims, count, scores, 0, at);
  let best = 0;
  for (let l = 1; l < count; l++) if (scores[l] > scores[best]) best = l;
  return best;
}

/** nearestRow's products, reused across calls (the build is synchronous between its pauses). */
let scores = new Float32Array(0);

/** out[outAt .. outAt + rows) = projection (rows x dims) times v[vAt .. vAt + dims), four rows per pass over v. */
function project(v: Float32Array, projection: Float32Array, dims: number, rows: number, out: Float32Array, outAt: number, vAt = 0): void {
  let r = 0;
  for (; r + 3 < rows; r += 4) {
    const p0 = r * dims;
    const p1 = p0 + dims;
    const p2 = p1 + dims;
    const p3 = p2 + dims;
    let s0 = 0;
    let s1 = 0;
    let s2 = 0;
    let s3 = 0;
    for (let j = 0; j < dims; j++) {
      const x = v[vAt + j];
      s0 += x * projection[p0 + j];
      s1 += x * projection[p1 + j];
      s2 += x * projection[p2 + j];
      s3 += x * projection[p3 + j];
    }
    out[outAt + r] = s0;
    out[outAt + r + 1] = s1;
    out[outAt + r + 2] = s2;
    out[outAt + r + 3] = s3;
  }
  for (; r < rows; r++) out[outAt + r] = dotAt(v, projection, r * dims, dims, vAt);
}

/**
 * The top `rows` eigenvectors of a symmetric matrix by subspace iteration,
 * as rows of a (rows x dims) array.
 */
function* principalRows(matrix: Float64Array, dims: number, rows: number, random: () => number): Generator<void, Float32Array> {
  let q = new Float64Array(rows * dims);
  for (let j = 0; j < q.length; j++) q[j] = random() - 0.5;
  orthonormalizeRows(q, rows, dims);
  for (let iteration = 0; iteration < 12; iteration++) {
    const next = new Float64Array(rows * dims);
    for (let r = 0; r < rows; r++) {
      const qr = r * dims;
      for (let a = 0; a < dims; a++) {
        let s = 0;
        const row = a * dims;
        for (let b = 0; b < dims; b++) s += matrix[row + b] * q[qr + b];
        next[qr + a] = s;
      }
      if ((r & 7) === 7) yield;
    }
    orthonormalizeRows(next, rows, dims);
    q = next;
  }
  return Float32Array.from(q);
}

function orthonormalizeRows(m: Float64Array, rows: number, dims: number): void {
  for (let r = 0; r < rows; r++) {
    for (let p = 0; p < r; p++) {
      let s = 0;
      for (let j = 0; j < dims; j++) s += m[r * dims + j] * m[p * dims + j];
      for (let j = 0; j < dims; j++) m[r * dims + j] -= s * m[p * dims + j];
    }
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += m[r * dims + j] ** 2;
    const inv = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let j = 0; j < dims; j++) m[r * dims + j] *= inv;
  }
}

function normalizeRows(m: Float32Array, dims: number): void {
  for (let at = 0; at < m.length; at += dims) {
    let norm = 0;
    for (let j = 0; j < dims; j++) norm += m[at + j] * m[at + j];
    if (norm === 0) continue;
    const inv = 1 / Math.sqrt(norm);
    for (let j = 0; j < dims; j++) m[at + j] *= inv;
  }
}

/** `count` distinct indices below n, in random order (a partial Fisher-Yates). */
function sampleOf(n: number, count: number, random: () => number): Int32Array {
  const all = new Int32Array(n);
  for (let i = 0; i < n; i++) all[i] = i;
  for (let i = 0; i < count; i++) {
    const j = i + Math.floor(random() * (n - i));
    const t = all[i];
    all[i] = all[j];
    all[j] = t;
  }
  return all.slice(0, count);
}

/** The k best (score, id) pairs offered: a bounded min-heap. */
class TopK {
  private readonly scores: Float64Array;
  private readonly ids_: Int32Array;
  private count = 0;

  constructor(private readonly k: number) {
    this.scores = new Float64Array(k);
    this.ids_ = new Int32Array(k);
  }

  offer(score: number, id: number): void {
    const { scores, ids_: ids, k } = this;
    if (this.count < k) {
      // Sift up.
      let at = this.count++;
      while (at > 0) {
        const parent = (at - 1) >> 1;
        if (scores[parent] <= score) break;
        scores[at] = scores[parent];
        ids[at] = ids[parent];
        at = parent;
      }
      scores[at] = score;
      ids[at] = id;
      return;
    }
    if (k === 0 || score <= scores[0]) return;
    // Replace the minimum and sift down.
    let at = 0;
    for (;;) {
      const l = 2 * at + 1;
      if (l >= k) break;
      const r = l + 1;
      const child = r < k && scores[r] < scores[l] ? r : l;
      if (scores[child] >= score) break;
      scores[at] = scores[child];
      ids[at] = ids[child];
      at = child;
    }
    scores[at] = score;
    ids[at] = id;
  }

  ids(): Int32Array {
    return this.ids_.subarray(0, this.count);
  }

  sorted(): number[] {
    const order = [...Array(this.count).keys()].sort((a, b) => this.scores[b] - this.scores[a]);
    return order.map((i) => this.ids_[i]);
  }
}

/** mulberry32: a small seeded generator, so an index build does not depend on the run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
