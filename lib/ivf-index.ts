/**
 * Approximate nearest neighbours by inner product over unit vectors (an IVF
 * index): the vectors are projected on their principal subspace (few dims:
 * cheap to scan), clustered by spherical k-means into about sqrt(n) lists, and
 * a query scans only the lists whose centroids are nearest it, then reranks
 * the best of what it scanned by the exact inner product on the full vectors.
 * Per-query cost grows with sqrt(n), not n. Small sets are scanned exactly.
 * The scans run in WebAssembly SIMD (lib/vector-kernel) over the index's own
 * copy of the codes and vectors, laid out list after list.
 *
 * Building is a generator that pauses between chunks of work, so a caller on
 * an event loop can build a large index without holding the loop (buildAsync);
 * buildSync runs it through.
 */
import { dotAt } from './vectors';
import { paddedDims, RowProducts, VectorArena, type Region } from './vector-kernel';

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

const DEFAULTS = { exactBelow: 2048, codeDims: 64, probes: 12, rerank: 320, listsPerRoot: 1, iterations: 5 };

interface IvfParts {
  /** Projection rows (codeDims x dims); empty when exact. */
  projection: Float32Array;
  codeDims: number;
  /** Unit centroids (lists x codeDims). */
  centroids: Float32Array;
  /** List l holds positions offsets[l] .. offsets[l+1] of ids and codes. */
  offsets: Int32Array;
  ids: Int32Array;
}

interface ReusableModel {
  projection: Float32Array;
  centroids: Float32Array;
  /** The code at a position of the last build (codeDims floats). */
  codeAt(at: number): Float32Array;
  at(vector: Float32Array): number | undefined;
  listAt(at: number): number;
}

/**
 * Where the index keeps what a query scans, in one VectorArena (rows padded to
 * the kernel's step): the projection, the centroids, the codes (int8, a scale
 * per dimension: a list scan reads a quarter of the bytes) and the full
 * vectors in list order (a probed list's rows are contiguous), and the
 * query's scratch.
 */
interface Layout {
  arena: VectorArena;
  /** Floats between rows: dims and codeDims padded to the kernel's step. */
  vectorStride: number;
  codeStride: number;
  projection: Region;
  centroids: Region;
  codes: Region;
  vectors: Region;
  query: Region;
  queryCode: Region;
  /** The query's code in int8, as the codes are. */
  queryCode8: Region;
  /** codes' int8 = round(code x codeScales[d]). */
  codeScales: Float32Array;
  out: Region;
  positions: Region;
  /** Positions the positions region holds. */
  positionsSize: number;
}

/** The built index; `vectors[i]` are the caller's own arrays (its regions hold a copy for the scans). */
export class IvfIndex {
  private readonly centroidsJs: Float32Array;
  private readonly projectionJs: Float32Array;
  private readonly codeDims: number;
  private readonly offsets: Int32Array;
  private readonly ids: Int32Array;

  /** A query's scanned scores and their positions, and the selection's scratch (grown as needed, reused: queries are synchronous). */
  private scanScores = new Int32Array(0);
  private scanPositions = new Int32Array(0);
  private selectScratch = new Int32Array(0);

  /** Each vector's position and list, made when a later build first reuses this one. */
  private where: { at: Map<Float32Array, number>; listOf: Int32Array } | undefined;

  /** Made by buildSync / buildAsync. */
  constructor(
    private readonly vectors: readonly Float32Array[],
    private readonly dims: number,
    private readonly search: { probes: number; rerank: number },
    parts: IvfParts,
    private readonly layout: Layout,
  ) {
    ({ projection: this.projectionJs, codeDims: this.codeDims, centroids: this.centroidsJs, offsets: this.offsets, ids: this.ids } = parts);
  }

  get size(): number {
    return this.vectors.length;
  }

  get lists(): number {
    return this.offsets.length - 1;
  }

  /** Bytes the index holds beyond the caller's vectors (its regions hold a copy of them). */
  get bytes(): number {
    return this.layout.arena.bytes + this.projectionJs.byteLength + this.centroidsJs.byteLength + this.offsets.byteLength + this.ids.byteLength;
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
    const { arena, codes, codeStride, codeScales } = this.layout;
    return {
      projection: this.projectionJs,
      centroids: this.centroidsJs,
      codeAt: (i) => Float32Array.from(arena.i8.subarray(codes * 4 + i * codeStride, codes * 4 + i * codeStride + codeDims), (x, d) => x / codeScales[d]),
      at: (v) => at.get(v),
      listAt: (i) => listOf[i],
    };
  }

  /** The ids of (about) the k vectors with the largest inner product with q, best first. */
  nearest(q: Float32Array, k: number): number[] {
    return this.idsAt(this.nearestPositions(q, k));
  }

  /**
   * nearest's ids, and each one's inner product with q as `dotAt(q, vector, 0, dims)`
   * computes it, to the last bit (the same loop, over the index's copy of the vector, which
   * the search has just read: no cache miss on the caller's array).
   */
  nearestScored(q: Float32Array, k: number): { ids: number[]; similarities: number[] } {
    const positions = this.nearestPositions(q, k);
    const { arena, vectors, vectorStride } = this.layout;
    return {
      ids: this.idsAt(positions),
      similarities: positions.map((at) => dotAt(q, arena.f32, vectors + at * vectorStride, this.dims)),
    };
  }

  /** The ids of vectors at these positions (an exact index lays them out in id order). */
  private idsAt(positions: number[]): number[] {
    return this.lists === 0 ? positions : positions.map((at) => this.ids[at]);
  }

  /** The positions (in the index's layout) of the k best, best first. */
  private nearestPositions(q: Float32Array, k: number): number[] {
    const n = this.vectors.length;
    if (k <= 0 || n === 0) return [];
    const { arena, query, queryCode, out, vectorStride, codeStride } = this.layout;
    const f32 = arena.f32;
    f32.set(q, query);
    if (this.lists === 0) {
      arena.dots(query, this.layout.vectors, vectorStride, n, out);
      const top = new TopK(Math.min(k, n));
      for (let i = 0; i < n; i++) top.offer(f32[out + i], i);
      return top.sorted();
    }
    arena.dots(query, this.layout.projection, vectorStride, this.codeDims, queryCode);
    arena.dots(queryCode, this.layout.centroids, codeStride, this.lists, out);
    const { probes, rerank } = this.search;
    const lists = new TopK(Math.min(probes, this.lists));
    for (let l = 0; l < this.lists; l++) lists.offer(f32[out + l], l);
    // The best codes of the probed lists, by position (int8 products: proportional to the code's).
    this.quantizeQueryCode();
    const { offsets } = this;
    const i32 = arena.i32;
    let scanned = 0;
    for (const l of lists.ids()) scanned += offsets[l + 1] - offsets[l];
    if (this.scanScores.length < scanned) {
      this.scanScores = new Int32Array(scanned);
      this.scanPositions = new Int32Array(scanned);
      this.selectScratch = new Int32Array(scanned);
    }
    const { scanScores, scanPositions } = this;
    let filled = 0;
    for (const l of lists.ids()) {
      const start = offsets[l];
      const count = offsets[l + 1] - start;
      arena.dotsInt8(this.layout.queryCode8 * 4, this.layout.codes * 4 + start * codeStride, codeStride, count, out);
      scanScores.set(i32.subarray(out, out + count), filled);
      for (let j = 0; j < count; j++) scanPositions[filled + j] = start + j;
      filled += count;
    }
    const found = this.best(Math.max(rerank, 4 * k), scanned);
    // Reranked by the exact inner product on the full vectors, in batches of what the positions region holds.
    const exact = new TopK(k);
    const { positions, positionsSize } = this.layout;
    for (let from = 0; from < found.length; from += positionsSize) {
      const batch = found.subarray(from, from + positionsSize);
      arena.i32.set(batch, positions);
      arena.gatherDots(query, this.layout.vectors, vectorStride, positions, batch.length, out);
      for (let j = 0; j < batch.length; j++) exact.offer(f32[out + j], batch[j]);
    }
    return exact.sorted();
  }

  /** The positions of the m best of the first `count` scanned scores (all of them when fewer): a selection, not a sort. */
  private best(m: number, count: number): Int32Array {
    const { scanScores, scanPositions } = this;
    if (count <= m) return scanPositions.subarray(0, count);
    const scratch = this.selectScratch.subarray(0, count);
    scratch.set(scanScores.subarray(0, count));
    const threshold = kthLargest(scratch, m);
    // Those above the threshold, then as many at it as make m.
    const out = new Int32Array(m);
    let above = 0;
    for (let j = 0; j < count; j++) if (scanScores[j] > threshold) out[above++] = scanPositions[j];
    for (let j = 0; j < count && above < m; j++) if (scanScores[j] === threshold) out[above++] = scanPositions[j];
    return out;
  }

  /** The query's code over the codes' scales, in int8 at the largest scale that fits. */
  private quantizeQueryCode(): void {
    const { arena, queryCode, queryCode8, codeScales } = this.layout;
    const cd = this.codeDims;
    let largest = 0;
    for (let d = 0; d < cd; d++) if (codeScales[d] > 0) largest = Math.max(largest, Math.abs(arena.f32[queryCode + d] / codeScales[d]));
    const scale = largest > 0 ? 127 / largest : 0;
    const q8 = arena.i8;
    for (let d = 0; d < cd; d++) q8[queryCode8 * 4 + d] = codeScales[d] > 0 ? Math.round((arena.f32[queryCode + d] / codeScales[d]) * scale) : 0;
  }
}

/** Past this share of vectors new to the last build, a rebuild trains its own projection and lists. */
const REUSE_AT_MOST = 0.2;

function* build(vectors: readonly Float32Array[], options: IvfOptions, base?: IvfIndex): Generator<void, IvfIndex> {
  const o = { ...DEFAULTS, ...options };
  const random = options.random ?? seededRandom(0x1d0c);
  const n = vectors.length;
  const dims = vectors[0]?.length ?? 0;
  const search = { probes: o.probes, rerank: o.rerank };
  if (n < o.exactBelow || dims === 0) {
    const parts = { projection: new Float32Array(0), codeDims: 0, centroids: new Float32Array(0), offsets: new Int32Array(1), ids: new Int32Array(0) };
    const layout = yield* layOut(vectors, dims, parts, undefined, o.rerank);
    return new IvfIndex(vectors, dims, search, parts, layout);
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
        codesById.set(model.codeAt(at), i * cd);
        assign[i] = model.listAt(at);
      }
      if ((i & 1023) === 1023) yield;
    }
    if (fresh > REUSE_AT_MOST * n) model = undefined;
  }
  const trained = model ?? (yield* trainModel(vectors, cd, lists, o.iterations, random));
  const projection = trained.projection;
  const centroids = trained.centroids;
  const projector = new RowProducts(projection, dims);
  for (let i = 0; i < n; i++) {
    if (!model || assign[i] < 0) {
      codesById.set(projector.of(vectors[i]), i * cd);
      assign[i] = -1;
    }
    if ((i & 1023) === 1023) yield;
  }
  const toCentroids = new RowProducts(centroids, cd);
  for (let i = 0; i < n; i++) {
    if (assign[i] < 0) assign[i] = largest(toCentroids.of(codesById, i * cd));
    if ((i & 511) === 511) yield;
  }
  // The lists' count is the centroids' (a reused model's may differ from what this many vectors would get).
  const count = centroids.length / cd;
  const sizes = new Int32Array(count);
  for (let i = 0; i < n; i++) sizes[assign[i]]++;

  // The lists, each contiguous (ids, codes and vectors in list order).
  const offsets = new Int32Array(count + 1);
  for (let l = 0; l < count; l++) offsets[l + 1] = offsets[l] + sizes[l];
  const fill = offsets.slice(0, count);
  const ids = new Int32Array(n);
  for (let i = 0; i < n; i++) ids[fill[assign[i]]++] = i;
  const parts = { projection, codeDims: cd, centroids, offsets, ids };
  const layout = yield* layOut(vectors, dims, parts, codesById, o.rerank);
  return new IvfIndex(vectors, dims, search, parts, layout);
}

/** The regions a query scans, filled in list order (codesById: each vector's code, by id). */
function* layOut(
  vectors: readonly Float32Array[],
  dims: number,
  parts: IvfParts,
  codesById: Float32Array | undefined,
  rerank: number,
): Generator<void, Layout> {
  const n = vectors.length;
  const { codeDims: cd, offsets, ids } = parts;
  const lists = offsets.length - 1;
  const vectorStride = paddedDims(dims);
  const codeStride = paddedDims(cd);
  let largestList = 0;
  for (let l = 0; l < lists; l++) largestList = Math.max(largestList, offsets[l + 1] - offsets[l]);
  const positionsSize = Math.max(rerank, 256);
  const outSize = Math.max(lists === 0 ? n : Math.max(lists, largestList), positionsSize);
  const sizes = {
    projection: cd * vectorStride,
    centroids: lists * codeStride,
    // int8: four to a float.
    codes: lists === 0 ? 0 : (n * codeStride) / 4,
    vectors: n * vectorStride,
    query: vectorStride,
    queryCode: codeStride,
    queryCode8: codeStride / 4,
    out: outSize,
    positions: positionsSize,
  };
  const arena = new VectorArena(VectorArena.floatsFor(...Object.values(sizes)));
  const layout: Layout = {
    arena,
    vectorStride,
    codeStride,
    projection: arena.region(sizes.projection),
    centroids: arena.region(sizes.centroids),
    codes: arena.region(sizes.codes),
    vectors: arena.region(sizes.vectors),
    query: arena.region(sizes.query),
    queryCode: arena.region(sizes.queryCode),
    queryCode8: arena.region(sizes.queryCode8),
    codeScales: codeScalesOf(codesById, cd),
    out: arena.region(sizes.out),
    positions: arena.region(sizes.positions),
    positionsSize,
  };
  const { f32, i8 } = arena;
  const { codeScales } = layout;
  for (let r = 0; r < cd; r++) f32.set(parts.projection.subarray(r * dims, (r + 1) * dims), layout.projection + r * vectorStride);
  for (let l = 0; l < lists; l++) f32.set(parts.centroids.subarray(l * cd, (l + 1) * cd), layout.centroids + l * codeStride);
  for (let at = 0; at < n; at++) {
    const i = lists === 0 ? at : ids[at];
    f32.set(vectors[i], layout.vectors + at * vectorStride);
    if (codesById) {
      const row = layout.codes * 4 + at * codeStride;
      for (let d = 0; d < cd; d++) i8[row + d] = Math.round(codesById[i * cd + d] * codeScales[d]);
    }
    if ((at & 1023) === 1023) yield;
  }
  return layout;
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
  const projector = new RowProducts(projection, dims);
  for (let t = 0; t < sample.length; t++) {
    codes.set(projector.of(vectors[sample[t]]), t * cd);
    if ((t & 1023) === 1023) yield;
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
    const toCentroids = new RowProducts(centroids, dims);
    for (let t = 0; t < train.length; t++) {
      const i = train[t];
      const l = largest(toCentroids.of(points, i * dims));
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

/** Per dimension, the scale that takes the codes' largest magnitude to 127 (0 where all are 0). */
function codeScalesOf(codesById: Float32Array | undefined, cd: number): Float32Array {
  const largest = new Float32Array(cd);
  if (codesById) for (let at = 0; at < codesById.length; at++) largest[at % cd] = Math.max(largest[at % cd], Math.abs(codesById[at]));
  return largest.map((x) => (x > 0 ? 127 / x : 0));
}

/** The k-th largest of `xs` (1-based; k <= xs.length), by quickselect: `xs` is reordered. */
function kthLargest(xs: Int32Array, k: number): number {
  let lo = 0;
  let hi = xs.length - 1;
  const target = k - 1;
  while (lo < hi) {
    const pivot = xs[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (xs[i] > pivot) i++;
      while (xs[j] < pivot) j--;
      if (i <= j) {
        const t = xs[i];
        xs[i] = xs[j];
        xs[j] = t;
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else break;
  }
  return xs[target];
}

/** The index of the largest of `xs` (the first on a tie). */
function largest(xs: Float32Array): number {
  let best = 0;
  for (let l = 1; l < xs.length; l++) if (xs[l] > xs[best]) best = l;
  return best;
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
